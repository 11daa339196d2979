// The model catalog's YAML: `models:` entries and the shape keys a scenario may override.
#include <algorithm>
#include <string>
#include <vector>

#include "catalog_entries.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/limits.h"

namespace dlsim::io {

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
                                                 "v_head_dim"};
  return kKeys;
}

std::string FormatMoeAndMlaKeys(const model::ModelSpec& s, const std::string& indent) {
  std::string out;
  auto key = [&](const char* k, const std::string& v) { out += indent + k + ": " + v + "\n"; };
  if (s.explicit_head_dim > 0) key("head_dim", std::to_string(s.explicit_head_dim));
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
  return out;
}

void ReadMoeAndMlaShape(const MapReader& m, model::ModelSpec& spec) {
  spec.explicit_head_dim = m.Get<int>("head_dim", spec.explicit_head_dim, limits::kHeadDim);
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
}

void ReadModelShape(const MapReader& m, model::ModelSpec& spec, bool is_new) {
  using internal::Field;
  const int old_heads = spec.heads;
  const int old_hidden = spec.hidden;
  spec.arch =
      m.GetEnum("arch", spec.arch, {{"decoder", model::Arch::kDecoder}, {"encoder", model::Arch::kEncoder}});
  spec.layers = Field<int>(m, "layers", spec.layers, is_new, limits::kLayers);
  spec.hidden = Field<int>(m, "hidden", spec.hidden, is_new, limits::kHidden);
  spec.heads = Field<int>(m, "heads", spec.heads, is_new, limits::kHeads);
  // Multi-head attention and a 4 x hidden MLP follow heads and hidden unless told otherwise.
  const bool mha = is_new || spec.kv_heads == old_heads;
  const bool ffn4 = is_new || spec.ffn_hidden == 4 * old_hidden;
  spec.kv_heads = m.Get<int>("kv_heads", mha ? spec.heads : spec.kv_heads, limits::kHeads);
  spec.ffn_hidden = m.Get<int>("ffn_hidden", ffn4 ? 4 * spec.hidden : spec.ffn_hidden, limits::kFfnHidden);
  spec.vocab = Field<int>(m, "vocab", spec.vocab, is_new, limits::kVocab);
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
}  // namespace dlsim::io
