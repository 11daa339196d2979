#include "dlsim/model/model_spec.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/model/dit.h"

namespace dlsim::model {

std::string_view ArchName(Arch a) {
  return a == Arch::kDecoder ? "decoder" : a == Arch::kEncoder ? "encoder" : "dit";
}
std::string_view NormName(Norm n) { return n == Norm::kLayerNorm ? "layernorm" : "rmsnorm"; }
std::string_view PositionEmbeddingName(PositionEmbedding p) {
  switch (p) {
    case PositionEmbedding::kLearned:
      return "learned";
    case PositionEmbedding::kRope:
      return "rope";
    case PositionEmbedding::kNone:
      return "none";
  }
  return "?";
}

namespace {
// Parameters of one normalization over `width` features.
double NormParameters(const ModelSpec& m, double width) {
  return m.norm == Norm::kLayerNorm ? 2 * width : width;
}
}  // namespace

int ModelSpec::head_dim() const {
  if (mla.enabled()) return (mla.qk_nope_head_dim + mla.qk_rope_head_dim + mla.v_head_dim) / 2;
  return explicit_head_dim > 0 ? explicit_head_dim : hidden / heads;
}

double ModelSpec::QueryWidth() const {
  const double per_head = mla.enabled() ? mla.qk_nope_head_dim + mla.qk_rope_head_dim : head_dim();
  return static_cast<double>(heads) * per_head;
}

double ModelSpec::AttentionOutputWidth() const {
  return static_cast<double>(heads) * (mla.enabled() ? mla.v_head_dim : head_dim());
}

int ModelSpec::MoeLayers() const { return moe.enabled() ? std::max(0, layers - moe.first_dense_layers) : 0; }

namespace {

// MLA's projections (DeepSeek-V3 modeling code): q down (h x q_lora), its norm, q up (q_lora x heads
// (nope + rope)) -- or one h x heads (nope + rope) matrix without q_lora; kv down (h x (kv_lora + rope),
// the rope part is the shared key), its norm, kv up (kv_lora x heads (nope + v)); output (heads v x h).
double MlaParameters(const ModelSpec& m) {
  const double h = m.hidden, q = m.QueryWidth(), rope = m.mla.qk_rope_head_dim;
  const double ql = m.mla.q_lora_rank, kvl = m.mla.kv_lora_rank;
  const double q_params = ql > 0 ? h * ql + NormParameters(m, ql) + ql * q : h * q;
  const double kv_params =
      h * (kvl + rope) + NormParameters(m, kvl) + kvl * m.heads * (m.mla.qk_nope_head_dim + m.mla.v_head_dim);
  return q_params + kv_params + m.AttentionOutputWidth() * h;
}

// The parameters of a dense MLP of width `f` on `h` features.
double MlpParameters(const ModelSpec& m, double f) {
  const double h = m.hidden;
  const double up = m.gated_mlp ? 2 * f : f;  // gate + up, or up
  double mlp = up * h + f * h;
  if (m.linear_bias) mlp += up + h;
  return mlp;
}

}  // namespace

double ModelSpec::AttentionParameters() const {
  if (mla.enabled()) return MlaParameters(*this);
  const double h = hidden, q = QueryWidth();
  const double kv = static_cast<double>(kv_heads) * head_dim();  // width of K and of V
  double attn = h * q + q * h + 2 * h * kv;                      // Q, O; K, V
  if (attention_bias || linear_bias) attn += q + 2 * kv;         // QKV bias
  if (linear_bias) attn += h;                                    // output projection bias
  return attn;
}

double ModelSpec::ExpertParameters() const { return MlpParameters(*this, moe.expert_ffn_hidden); }

double ModelSpec::MoeMlpParameters() const {
  const double router = static_cast<double>(moe.experts) * hidden;
  return router + (moe.experts + moe.shared_experts) * ExpertParameters();
}

double ModelSpec::LayerParameters() const {
  if (arch == Arch::kDit) return DitBlockParameters(*this, DitBlockOf(*this, 0));
  return AttentionParameters() + MlpParameters(*this, ffn_hidden) + 2 * NormParameters(*this, hidden);
}

double ModelSpec::MoeLayerParameters() const {
  return AttentionParameters() + MoeMlpParameters() + 2 * NormParameters(*this, hidden);
}

double ModelSpec::ActiveParameterCount() const {
  const int moe_layers = MoeLayers();
  const double idle = static_cast<double>(moe.experts - moe.top_k) * ExpertParameters();
  return ParameterCount() - moe_layers * idle;
}

double ModelSpec::EmbeddingParameters() const {
  if (arch == Arch::kDit) return DitEmbeddingParameters(*this);
  double p = static_cast<double>(vocab) * hidden;
  if (position_embedding == PositionEmbedding::kLearned) p += static_cast<double>(max_seq_len) * hidden;
  return p;
}

double ModelSpec::HeadParameters() const {
  if (arch == Arch::kDit) return DitHeadParameters(*this);
  double p = NormParameters(*this, hidden);  // final norm (BERT: the embedding norm)
  if (!tied_embeddings) p += static_cast<double>(vocab) * hidden;
  return p;
}

double ModelSpec::ParameterCount() const {
  if (arch == Arch::kDit) return DitParameterCount(*this);
  const int moe_layers = MoeLayers();
  double p = (layers - moe_layers) * LayerParameters() + EmbeddingParameters() + HeadParameters();
  if (moe_layers > 0) p += moe_layers * MoeLayerParameters();
  return p;
}

namespace {

std::vector<ShapeIssue> PositivityIssues(const ModelSpec& m) {
  std::vector<ShapeIssue> out;
  const std::pair<std::string_view, int> fields[] = {{"layers", m.layers},         {"hidden", m.hidden},
                                                     {"heads", m.heads},           {"kv_heads", m.kv_heads},
                                                     {"ffn_hidden", m.ffn_hidden}, {"vocab", m.vocab}};
  for (const auto& [field, v] : fields) {
    if (field == "vocab" && m.arch == Arch::kDit) continue;  // a DiT has no vocabulary
    if (v <= 0)
      out.push_back(
          {{field}, std::string(field) + " must be a positive integer, found " + std::to_string(v)});
  }
  return out;
}

std::string S(int v) { return std::to_string(v); }

// The rules of the MoE MLP (model_spec.h).
void AddMoeIssues(const ModelSpec& m, std::vector<ShapeIssue>& out) {
  const MoeSpec& e = m.moe;
  if (e.experts < 0)
    out.push_back({{"experts"}, "experts must be 0 (dense) or positive, found " + S(e.experts)});
  if (!e.enabled()) return;
  if (e.top_k < 1 || e.top_k > e.experts)
    out.push_back({{"top_k", "experts"},
                   "top_k " + S(e.top_k) + " must be in 1..experts = " + S(e.experts) +
                       " (each token is routed to top_k distinct experts)"});
  if (e.expert_ffn_hidden <= 0)
    out.push_back({{"expert_ffn_hidden"},
                   "expert_ffn_hidden must be a positive integer, found " + S(e.expert_ffn_hidden)});
  if (e.shared_experts < 0)
    out.push_back({{"shared_experts"}, "shared_experts must not be negative, found " + S(e.shared_experts)});
  if (e.first_dense_layers < 0 || e.first_dense_layers >= m.layers)
    out.push_back({{"first_dense_layers", "layers"},
                   "first_dense_layers " + S(e.first_dense_layers) + " must be in 0.." + S(m.layers - 1) +
                       " (at least one layer has experts)"});
  if (!(e.capacity_factor >= 0))
    out.push_back(
        {{"capacity_factor"},
         "capacity_factor must be 0 (dropless) or positive, found " + std::to_string(e.capacity_factor)});
}

// The rules of multi-head latent attention (model_spec.h).
void AddMlaIssues(const ModelSpec& m, std::vector<ShapeIssue>& out) {
  const MlaSpec& a = m.mla;
  if (a.kv_lora_rank < 0) out.push_back({{"kv_lora_rank"}, "kv_lora_rank must not be negative"});
  if (!a.enabled()) return;
  if (a.q_lora_rank < 0)
    out.push_back({{"q_lora_rank"}, "q_lora_rank must be 0 (no bottleneck) or positive"});
  const std::pair<std::string_view, int> widths[] = {{"qk_nope_head_dim", a.qk_nope_head_dim},
                                                     {"qk_rope_head_dim", a.qk_rope_head_dim},
                                                     {"v_head_dim", a.v_head_dim}};
  for (const auto& [field, v] : widths)
    if (v <= 0)
      out.push_back(
          {{field}, std::string(field) + " must be positive under MLA (kv_lora_rank > 0), found " + S(v)});
  if ((a.qk_nope_head_dim + a.qk_rope_head_dim + a.v_head_dim) % 2 != 0)
    out.push_back(
        {{"v_head_dim", "qk_nope_head_dim"},
         "qk_nope_head_dim + qk_rope_head_dim + v_head_dim must be even (dlsim prices MLA attention "
         "with their mean as one head width)"});
}

// The rules of a diffusion transformer (dit_spec.h).
void AddDitIssues(const ModelSpec& m, std::vector<ShapeIssue>& out) {
  const DitSpec& d = m.dit;
  const std::pair<std::string_view, int> positive[] = {{"text_dim", d.text_dim},
                                                       {"text_tokens", d.text_tokens},
                                                       {"latent_channels", d.latent_channels},
                                                       {"patch", d.patch},
                                                       {"patch_frames", d.patch_frames},
                                                       {"vae_spatial", d.vae_spatial},
                                                       {"vae_temporal", d.vae_temporal},
                                                       {"frequency_dim", d.frequency_dim}};
  for (const auto& [field, v] : positive)
    if (v <= 0) out.push_back({{field}, std::string(field) + " must be a positive integer, found " + S(v)});
  if (d.double_blocks < 0 || d.double_blocks > m.layers)
    out.push_back({{"double_blocks", "layers"},
                   "double_blocks " + S(d.double_blocks) + " must be in 0..layers = " + S(m.layers)});
  if (d.cross_attention && d.double_blocks > 0)
    out.push_back({{"double_blocks", "cross_attention"},
                   "a cross-attention DiT has no double-stream blocks (double_blocks must be 0)"});
  if (d.pooled_dim < 0) out.push_back({{"pooled_dim"}, "pooled_dim must be 0 (none) or positive"});
  const bool refiner = d.refiner_blocks > 0;
  if (d.refiner_blocks < 0) out.push_back({{"refiner_blocks"}, "refiner_blocks must not be negative"});
  if (refiner && (d.refiner_hidden <= 0 || d.refiner_heads <= 0 || d.refiner_in <= 0 ||
                  d.refiner_hidden % d.refiner_heads != 0))
    out.push_back({{"refiner_hidden", "refiner_heads", "refiner_in", "refiner_blocks"},
                   "a text refiner needs positive refiner_in, refiner_hidden and refiner_heads, with "
                   "refiner_heads dividing refiner_hidden"});
  if (d.refiner_pooled && !(refiner && d.pooled_dim > 0))
    out.push_back({{"refiner_pooled", "pooled_dim"},
                   "refiner_pooled projects the pooled vector from the refiner's input: it needs "
                   "refiner_blocks > 0 and pooled_dim > 0"});
}

void AddWindowIssues(const ModelSpec& m, std::vector<ShapeIssue>& out) {
  if (m.sliding_window < 0)
    out.push_back({{"sliding_window"},
                   "sliding_window must be 0 (none) or a positive number of tokens, found " +
                       std::to_string(m.sliding_window)});
  if (m.sliding_window > 0 && m.arch != Arch::kDecoder)
    out.push_back({{"sliding_window", "arch"},
                   "sliding_window is a causal decoder's local attention; the model's arch is " +
                       std::string(ArchName(m.arch))});
  if (m.sliding_window_pattern < 0 || m.sliding_window_pattern == 1)
    out.push_back({{"sliding_window_pattern"},
                   "sliding_window_pattern must be 0 (every layer windowed) or N >= 2 (every Nth layer "
                   "global), found " +
                       std::to_string(m.sliding_window_pattern)});
  if (m.sliding_window_pattern != 0 && m.sliding_window == 0)
    out.push_back(
        {{"sliding_window_pattern", "sliding_window"},
         "sliding_window_pattern interleaves windowed layers, and the model has no sliding_window"});
}

}  // namespace

int ModelSpec::WindowedLayers() const {
  if (sliding_window <= 0) return 0;
  if (sliding_window_pattern < 2) return layers;
  return layers - layers / sliding_window_pattern;
}

double ModelSpec::WindowedLayerShare() const {
  return layers > 0 ? static_cast<double>(WindowedLayers()) / layers : 0.0;
}

std::vector<ShapeIssue> ModelSpec::ShapeIssues() const {
  std::vector<ShapeIssue> out = PositivityIssues(*this);
  if (!out.empty()) return out;
  if (explicit_head_dim < 0) out.push_back({{"head_dim"}, "head_dim must be 0 (hidden / heads) or positive"});
  if (hidden % heads != 0 && explicit_head_dim == 0 && !mla.enabled()) {
    out.push_back({{"heads", "hidden"},
                   "hidden " + std::to_string(hidden) + " is not divisible by heads " +
                       std::to_string(heads) + " (head_dim = hidden / heads)"});
  }
  if (kv_heads > heads || heads % kv_heads != 0) {
    out.push_back({{"kv_heads", "heads"},
                   "heads " + std::to_string(heads) + " is not a multiple of kv_heads " +
                       std::to_string(kv_heads) +
                       " (each key/value head serves a whole group of query heads)"});
  }
  if (dropout < 0 || dropout >= 1)
    out.push_back({{"dropout"}, "dropout must be in [0, 1), found " + std::to_string(dropout)});
  if (max_seq_len < 0) out.push_back({{"max_seq_len"}, "max_seq_len must not be negative"});
  if (position_embedding == PositionEmbedding::kLearned && max_seq_len <= 0)
    out.push_back(
        {{"max_seq_len", "position_embedding"}, "learned position embeddings need a positive max_seq_len"});
  AddMoeIssues(*this, out);
  AddMlaIssues(*this, out);
  AddWindowIssues(*this, out);
  if (arch == Arch::kDit) AddDitIssues(*this, out);
  return out;
}

Status ModelSpec::Validate() const {
  std::vector<ShapeIssue> issues = ShapeIssues();
  if (issues.empty()) return Status::Ok();
  return Error::InvalidArgument("model '" + name + "': " + issues.front().message);
}

Status ModelCatalog::Add(ModelSpec spec) {
  DLSIM_RETURN_IF_ERROR(spec.Validate());
  return models_.Add(std::move(spec));
}

Result<const ModelSpec*> ModelCatalog::Find(std::string_view name_or_alias) const {
  auto found = models_.Find(name_or_alias);
  if (found.ok() || !IsHubId(name_or_alias)) return found;
  return Error::NotFound(HubIdHint(name_or_alias));
}

bool IsHubId(std::string_view name) { return name.find('/') != std::string_view::npos; }

std::string HubIdHint(std::string_view name) {
  return "'" + std::string(name) +
         "' is a Hugging Face hub id that is not in dlsim's table of published configs (the catalog's "
         "aliases; "
         "'dlsim catalog list models' names the models): download its config.json and 'dlsim catalog import "
         "config.json --name NAME > my.yaml', then give '--catalog my.yaml' (docs/catalog.md)";
}

std::vector<std::string> ModelCatalog::Names() const { return models_.Names(); }
std::vector<std::string> ModelCatalog::NamesAndAliases() const { return models_.NamesAndAliases(); }
std::vector<const ModelSpec*> ModelCatalog::Models() const { return models_.Entries(); }

}  // namespace dlsim::model
