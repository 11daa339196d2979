// The model catalog's YAML: `models:` entries and the shape keys a scenario may override.
#include <algorithm>
#include <string>
#include <vector>

#include "catalog_entries.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/limits.h"

namespace dlsim::io {

std::vector<std::pair<std::string, model::Arch>> ArchNames() {
  return {{"decoder", model::Arch::kDecoder}, {"encoder", model::Arch::kEncoder}, {"dit", model::Arch::kDit}};
}

const std::vector<std::string>& ModelShapeKeys() {
  static const std::vector<std::string> kKeys = {"arch",
                                                 "layers",
                                                 "hidden",
                                                 "heads",
                                                 "kv_heads",
                                                 "ffn_hidden",
                                                 "vocab",
                                                 "gated_mlp",
                                                 "tied_embeddings",
                                                 "attention_bias",
                                                 "linear_bias",
                                                 "norm",
                                                 "position_embedding",
                                                 "dropout",
                                                 "max_seq_len",
                                                 "head_dim",
                                                 "sliding_window",
                                                 "sliding_window_pattern",
                                                 "experts",
                                                 "top_k",
                                                 "expert_ffn_hidden",
                                                 "shared_experts",
                                                 "first_dense_layers",
                                                 "capacity_factor",
                                                 "q_lora_rank",
                                                 "kv_lora_rank",
                                                 "qk_nope_head_dim",
                                                 "qk_rope_head_dim",
                                                 "v_head_dim",
                                                 "cross_attention",
                                                 "double_blocks",
                                                 "qk_norm",
                                                 "modulation",
                                                 "cross_attention_norm",
                                                 "text_dim",
                                                 "text_mlp",
                                                 "text_tokens",
                                                 "pooled_dim",
                                                 "guidance_embed",
                                                 "frequency_dim",
                                                 "refiner_blocks",
                                                 "refiner_hidden",
                                                 "refiner_heads",
                                                 "refiner_in",
                                                 "refiner_pooled",
                                                 "latent_channels",
                                                 "patch",
                                                 "patch_frames",
                                                 "vae_spatial",
                                                 "vae_temporal",
                                                 "vae_causal"};
  return kKeys;
}

namespace {

// The DiT keys of `d`, one "KEY: VALUE" line each (every key: a DiT has no defaults worth hiding).
std::string FormatDitKeys(const model::DitSpec& d, const std::string& indent) {
  std::string out;
  auto key = [&](const char* k, const std::string& v) { out += indent + k + ": " + v + "\n"; };
  auto b = [](bool v) { return std::string(v ? "true" : "false"); };
  auto i = [](int v) { return std::to_string(v); };
  key("cross_attention", b(d.cross_attention));
  key("double_blocks", i(d.double_blocks));
  key("qk_norm", std::string(model::QkNormName(d.qk_norm)));
  key("modulation", std::string(model::ModulationName(d.modulation)));
  key("cross_attention_norm", b(d.cross_attention_norm));
  key("text_dim", i(d.text_dim));
  key("text_mlp", b(d.text_mlp));
  key("text_tokens", i(d.text_tokens));
  key("pooled_dim", i(d.pooled_dim));
  key("guidance_embed", b(d.guidance_embed));
  key("frequency_dim", i(d.frequency_dim));
  if (d.refiner_blocks > 0) {
    key("refiner_blocks", i(d.refiner_blocks));
    key("refiner_hidden", i(d.refiner_hidden));
    key("refiner_heads", i(d.refiner_heads));
    key("refiner_in", i(d.refiner_in));
    key("refiner_pooled", b(d.refiner_pooled));
  }
  key("latent_channels", i(d.latent_channels));
  key("patch", i(d.patch));
  key("patch_frames", i(d.patch_frames));
  key("vae_spatial", i(d.vae_spatial));
  key("vae_temporal", i(d.vae_temporal));
  key("vae_causal", b(d.vae_causal));
  return out;
}

// The DiT keys (dit_spec.h) present in `m`, into spec.dit.
void ReadDitShape(const MapReader& m, model::DitSpec& d) {
  d.cross_attention = m.Get<bool>("cross_attention", d.cross_attention);
  d.double_blocks = m.Get<int>("double_blocks", d.double_blocks, limits::kDenseLayers);
  d.qk_norm = m.GetEnum(
      "qk_norm", d.qk_norm,
      {{"none", model::QkNorm::kNone}, {"head", model::QkNorm::kPerHead}, {"full", model::QkNorm::kFull}});
  d.modulation = m.GetEnum("modulation", d.modulation,
                           {{"block", model::Modulation::kPerBlock}, {"shared", model::Modulation::kShared}});
  d.cross_attention_norm = m.Get<bool>("cross_attention_norm", d.cross_attention_norm);
  d.text_dim = m.Get<int>("text_dim", d.text_dim, limits::kHidden);
  d.text_mlp = m.Get<bool>("text_mlp", d.text_mlp);
  d.text_tokens = m.Get<int>("text_tokens", d.text_tokens, limits::kMaxSeqLen);
  d.pooled_dim = m.Get<int>("pooled_dim", d.pooled_dim, Range::Between(0, 1 << 20));
  d.guidance_embed = m.Get<bool>("guidance_embed", d.guidance_embed);
  d.frequency_dim = m.Get<int>("frequency_dim", d.frequency_dim, limits::kHidden);
  d.refiner_blocks = m.Get<int>("refiner_blocks", d.refiner_blocks, limits::kDenseLayers);
  d.refiner_hidden = m.Get<int>("refiner_hidden", d.refiner_hidden, limits::kHidden);
  d.refiner_heads = m.Get<int>("refiner_heads", d.refiner_heads, limits::kHeads);
  d.refiner_in = m.Get<int>("refiner_in", d.refiner_in, limits::kHidden);
  d.refiner_pooled = m.Get<bool>("refiner_pooled", d.refiner_pooled);
  d.latent_channels = m.Get<int>("latent_channels", d.latent_channels, limits::kHidden);
  d.patch = m.Get<int>("patch", d.patch, limits::kPatch);
  d.patch_frames = m.Get<int>("patch_frames", d.patch_frames, limits::kPatch);
  d.vae_spatial = m.Get<int>("vae_spatial", d.vae_spatial, limits::kPatch);
  d.vae_temporal = m.Get<int>("vae_temporal", d.vae_temporal, limits::kPatch);
  d.vae_causal = m.Get<bool>("vae_causal", d.vae_causal);
}

}  // namespace

std::string FormatMoeAndMlaKeys(const model::ModelSpec& s, const std::string& indent) {
  std::string out;
  auto key = [&](const char* k, const std::string& v) { out += indent + k + ": " + v + "\n"; };
  if (s.explicit_head_dim > 0) key("head_dim", std::to_string(s.explicit_head_dim));
  if (s.sliding_window > 0) key("sliding_window", std::to_string(s.sliding_window));
  if (s.sliding_window_pattern > 0) key("sliding_window_pattern", std::to_string(s.sliding_window_pattern));
  if (s.moe.enabled()) {
    const model::MoeSpec& e = s.moe;
    key("experts", std::to_string(e.experts));
    key("top_k", std::to_string(e.top_k));
    key("expert_ffn_hidden", std::to_string(e.expert_ffn_hidden));
    key("shared_experts", std::to_string(e.shared_experts));
    key("first_dense_layers", std::to_string(e.first_dense_layers));
    key("capacity_factor", FormatNumber(e.capacity_factor, 17));
  }
  if (s.mla.enabled()) {
    const model::MlaSpec& a = s.mla;
    key("q_lora_rank", std::to_string(a.q_lora_rank));
    key("kv_lora_rank", std::to_string(a.kv_lora_rank));
    key("qk_nope_head_dim", std::to_string(a.qk_nope_head_dim));
    key("qk_rope_head_dim", std::to_string(a.qk_rope_head_dim));
    key("v_head_dim", std::to_string(a.v_head_dim));
  }
  if (s.arch == model::Arch::kDit) out += FormatDitKeys(s.dit, indent);
  return out;
}

// Keys that only mean something for a mixture of experts or multi-head latent attention, given to a model
// that has neither, were silently ignored (issue 35): each is an error at its key.
void RefuseUnusedMoeAndMlaKeys(const MapReader& m, const model::ModelSpec& spec) {
  if (!spec.moe.enabled()) {
    for (const char* key :
         {"top_k", "expert_ffn_hidden", "shared_experts", "first_dense_layers", "capacity_factor"})
      if (m.Has(key))
        m.AddError(key,
                   "only a mixture of experts uses it, and the model has no experts (give `experts: N`)");
  }
  if (!spec.mla.enabled()) {
    for (const char* key : {"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"})
      if (m.Has(key))
        m.AddError(
            key, "only multi-head latent attention uses it, and the model has none (give `kv_lora_rank: N`)");
  }
}

void ReadMoeAndMlaShape(const MapReader& m, model::ModelSpec& spec) {
  spec.explicit_head_dim = m.Get<int>("head_dim", spec.explicit_head_dim, limits::kHeadDim);
  spec.sliding_window = m.Get<int>("sliding_window", spec.sliding_window, limits::kSlidingWindow);
  spec.sliding_window_pattern =
      m.Get<int>("sliding_window_pattern", spec.sliding_window_pattern, limits::kWindowPattern);
  model::MoeSpec& e = spec.moe;
  e.experts = m.Get<int>("experts", e.experts, limits::kExperts);
  e.top_k = m.Get<int>("top_k", e.enabled() && e.top_k == 0 ? 1 : e.top_k, limits::kTopK);
  e.expert_ffn_hidden =
      m.Get<int>("expert_ffn_hidden", e.expert_ffn_hidden > 0 ? e.expert_ffn_hidden : spec.ffn_hidden,
                 limits::kFfnHidden);
  e.shared_experts = m.Get<int>("shared_experts", e.shared_experts, limits::kSharedExperts);
  e.first_dense_layers = m.Get<int>("first_dense_layers", e.first_dense_layers, limits::kDenseLayers);
  e.capacity_factor = m.Get<double>("capacity_factor", e.capacity_factor, limits::kCapacityFactor);
  model::MlaSpec& a = spec.mla;
  a.q_lora_rank = m.Get<int>("q_lora_rank", a.q_lora_rank, limits::kLoraRank);
  a.kv_lora_rank = m.Get<int>("kv_lora_rank", a.kv_lora_rank, limits::kLoraRank);
  a.qk_nope_head_dim = m.Get<int>("qk_nope_head_dim", a.qk_nope_head_dim, limits::kHeadDim);
  a.qk_rope_head_dim = m.Get<int>("qk_rope_head_dim", a.qk_rope_head_dim, limits::kHeadDim);
  a.v_head_dim = m.Get<int>("v_head_dim", a.v_head_dim, limits::kHeadDim);
  RefuseUnusedMoeAndMlaKeys(m, spec);
  ReadDitShape(m, spec.dit);
}

void ReadModelShape(const MapReader& m, model::ModelSpec& spec, bool is_new) {
  using internal::Field;
  const int old_heads = spec.heads;
  const int old_hidden = spec.hidden;
  spec.arch = m.GetEnum("arch", spec.arch, ArchNames());
  spec.layers = Field<int>(m, "layers", spec.layers, is_new, limits::kLayers);
  spec.hidden = Field<int>(m, "hidden", spec.hidden, is_new, limits::kHidden);
  spec.heads = Field<int>(m, "heads", spec.heads, is_new, limits::kHeads);
  // Multi-head attention and a 4 x hidden MLP follow heads and hidden unless told otherwise.
  const bool mha = is_new || spec.kv_heads == old_heads;
  const bool ffn4 = is_new || spec.ffn_hidden == 4 * old_hidden;
  spec.kv_heads = m.Get<int>("kv_heads", mha ? spec.heads : spec.kv_heads, limits::kHeads);
  spec.ffn_hidden = m.Get<int>("ffn_hidden", ffn4 ? 4 * spec.hidden : spec.ffn_hidden, limits::kFfnHidden);
  spec.vocab = Field<int>(m, "vocab", spec.vocab, is_new && spec.arch != model::Arch::kDit, limits::kVocab);
  spec.gated_mlp = m.Get<bool>("gated_mlp", spec.gated_mlp);
  spec.tied_embeddings = m.Get<bool>("tied_embeddings", spec.tied_embeddings);
  spec.attention_bias = m.Get<bool>("attention_bias", spec.attention_bias);
  spec.linear_bias = m.Get<bool>("linear_bias", spec.linear_bias);
  spec.norm = m.GetEnum("norm", spec.norm,
                        {{"layernorm", model::Norm::kLayerNorm}, {"rmsnorm", model::Norm::kRmsNorm}});
  spec.position_embedding = m.GetEnum("position_embedding", spec.position_embedding,
                                      {{"learned", model::PositionEmbedding::kLearned},
                                       {"rope", model::PositionEmbedding::kRope},
                                       {"none", model::PositionEmbedding::kNone}});
  spec.dropout = m.Get<double>("dropout", spec.dropout, limits::kDropout);
  spec.max_seq_len = m.Get<int>("max_seq_len", spec.max_seq_len, limits::kMaxSeqLen);
  ReadMoeAndMlaShape(m, spec);
}

void CheckModelShape(const MapReader& m, const model::ModelSpec& spec) {
  for (const model::ShapeIssue& issue : spec.ShapeIssues()) {
    auto given =
        std::find_if(issue.keys.begin(), issue.keys.end(), [&](std::string_view k) { return m.Has(k); });
    if (given != issue.keys.end()) {
      m.AddError(*given, issue.message);
    } else {
      m.document().AddError(m.location(), m.path(), "model '" + spec.name + "': " + issue.message);
    }
  }
}

namespace internal {

std::vector<Pending<model::ModelSpec>> ReadModelEntries(const MapReader& root,
                                                        const model::ModelCatalog& models) {
  std::vector<Pending<model::ModelSpec>> out;
  for (const MapReader& e : root.SectionList("models")) {
    const model::ModelSpec* found = nullptr;
    if (auto name = e.Find<std::string>("name")) {
      if (auto r = models.Find(*name); r.ok()) found = *r;
    }
    model::ModelSpec spec = StartEntry(e, found);
    ReadModelShape(e, spec, found == nullptr);
    e.Finish();
    out.push_back({e, std::move(spec)});
  }
  return out;
}

}  // namespace internal
namespace {

// The `vision:` section of a multimodal entry (model/multimodal.h, VisionEncoderSpec).
void ReadVision(const MapReader& v, model::VisionEncoderSpec& s, bool is_new) {
  using internal::Field;
  s.layers = Field<int>(v, "layers", s.layers, is_new, limits::kLayers);
  s.hidden = Field<int>(v, "hidden", s.hidden, is_new, limits::kHidden);
  s.heads = Field<int>(v, "heads", s.heads, is_new, limits::kHeads);
  s.ffn_hidden = Field<int>(v, "ffn_hidden", s.ffn_hidden, is_new, limits::kFfnHidden);
  s.gated_mlp = v.Get<bool>("gated_mlp", s.gated_mlp);
  s.norm =
      v.GetEnum("norm", s.norm, {{"layernorm", model::Norm::kLayerNorm}, {"rmsnorm", model::Norm::kRmsNorm}});
  s.qkv_bias = v.Get<bool>("qkv_bias", s.qkv_bias);
  s.linear_bias = v.Get<bool>("linear_bias", s.linear_bias);
  s.qk_norm = v.Get<bool>("qk_norm", s.qk_norm);
  s.layer_scale = v.Get<bool>("layer_scale", s.layer_scale);
  s.patch_size = Field<int>(v, "patch_size", s.patch_size, is_new, Range::Between(1, 4096));
  s.temporal_patch = v.Get<int>("temporal_patch", s.temporal_patch, Range::Between(1, 64));
  s.channels = v.Get<int>("channels", s.channels, Range::Between(1, 64));
  s.patch_bias = v.Get<bool>("patch_bias", s.patch_bias);
  s.class_token = v.Get<bool>("class_token", s.class_token);
  s.position_embedding = v.GetEnum("position_embedding", s.position_embedding,
                                   {{"learned", model::PositionEmbedding::kLearned},
                                    {"rope", model::PositionEmbedding::kRope},
                                    {"none", model::PositionEmbedding::kNone}});
  s.pre_norm = v.Get<bool>("pre_norm", s.pre_norm);
  s.final_norm = v.Get<bool>("final_norm", s.final_norm);
  s.image_size = Field<int>(v, "image_size", s.image_size, is_new, Range::Between(1, 1 << 16));
  s.window_size = v.Get<int>("window_size", s.window_size, Range::Between(0, 1 << 16));
  if (auto full = v.FindList<int>("full_attention_layers", Range::Between(0, 10000)))
    s.full_attention_layers = *full;
  s.select_layer = v.Get<int>("select_layer", s.select_layer, Range::Between(-10000, -1));
  v.Finish();
}

void ReadProjector(const MapReader& p, model::ProjectorSpec& s) {
  s.spatial_merge = p.Get<int>("spatial_merge", s.spatial_merge, Range::Between(1, 64));
  s.norm = p.GetEnum("norm", s.norm,
                     {{"none", model::ProjectorNorm::kNone},
                      {"layernorm", model::ProjectorNorm::kLayerNorm},
                      {"rmsnorm", model::ProjectorNorm::kRmsNorm}});
  s.norm_merged = p.Get<bool>("norm_merged", s.norm_merged);
  s.hidden = p.Get<int>("hidden", s.hidden, Range::Between(0, 1 << 22));
  s.bias = p.Get<bool>("bias", s.bias);
  p.Finish();
}

}  // namespace

namespace internal {

std::vector<Pending<model::MultimodalSpec>> ReadMultimodalEntries(
    const MapReader& root, const model::MultimodalCatalog& multimodal) {
  std::vector<Pending<model::MultimodalSpec>> out;
  for (const MapReader& e : root.SectionList("multimodal_models")) {
    const model::MultimodalSpec* found = nullptr;
    if (auto name = e.Find<std::string>("name")) {
      if (auto r = multimodal.Find(*name); r.ok()) found = *r;
    }
    model::MultimodalSpec spec = StartEntry(e, found);
    const bool is_new = found == nullptr;
    spec.llm_name = Field<std::string>(e, "llm", spec.llm_name, is_new);
    const MapReader vision = e.Section("vision");
    if (vision.present()) {
      ReadVision(vision, spec.vision, is_new);
    } else if (is_new) {
      e.AddError("vision", "a new multimodal model needs a vision: section (layers, hidden, heads, ...)");
    }
    const MapReader projector = e.Section("projector");
    if (projector.present()) ReadProjector(projector, spec.projector);
    e.Finish();
    out.push_back({e, std::move(spec)});
  }
  return out;
}

Status ResolveMultimodalLlms(std::vector<Pending<model::MultimodalSpec>>& pending,
                             const model::ModelCatalog& models) {
  for (auto& p : pending) {
    auto llm = models.Find(p.spec.llm_name);
    if (!llm.ok()) return p.entry.ErrorAt("llm", llm.error().message);
    p.spec.llm = **llm;
    p.spec.llm_name = (*llm)->name;
  }
  return Status::Ok();
}

}  // namespace internal
}  // namespace dlsim::io
