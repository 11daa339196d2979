#include "dlsim/model/model_spec.h"

#include <string>
#include <utility>
#include <vector>

namespace dlsim::model {

std::string_view ArchName(Arch a) { return a == Arch::kDecoder ? "decoder" : "encoder"; }
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

double ModelSpec::LayerParameters() const {
  const double h = hidden;
  const double kv = static_cast<double>(kv_heads) * head_dim();  // width of K and of V
  const double f = ffn_hidden;
  double attn = 2 * h * h + 2 * h * kv;                   // Q, O; K, V
  if (attention_bias || linear_bias) attn += h + 2 * kv;  // QKV bias
  if (linear_bias) attn += h;                             // output projection bias
  const double up = gated_mlp ? 2 * f : f;                // gate + up, or up
  double mlp = up * h + f * h;
  if (linear_bias) mlp += up + h;
  return attn + mlp + 2 * NormParameters(*this, h);
}

double ModelSpec::EmbeddingParameters() const {
  double p = static_cast<double>(vocab) * hidden;
  if (position_embedding == PositionEmbedding::kLearned) p += static_cast<double>(max_seq_len) * hidden;
  return p;
}

double ModelSpec::HeadParameters() const {
  double p = NormParameters(*this, hidden);  // final norm (BERT: the embedding norm)
  if (!tied_embeddings) p += static_cast<double>(vocab) * hidden;
  return p;
}

double ModelSpec::ParameterCount() const {
  return layers * LayerParameters() + EmbeddingParameters() + HeadParameters();
}

namespace {

std::vector<ShapeIssue> PositivityIssues(const ModelSpec& m) {
  std::vector<ShapeIssue> out;
  const std::pair<std::string_view, int> fields[] = {{"layers", m.layers},         {"hidden", m.hidden},
                                                     {"heads", m.heads},           {"kv_heads", m.kv_heads},
                                                     {"ffn_hidden", m.ffn_hidden}, {"vocab", m.vocab}};
  for (const auto& [field, v] : fields) {
    if (v <= 0)
      out.push_back(
          {{field}, std::string(field) + " must be a positive integer, found " + std::to_string(v)});
  }
  return out;
}

}  // namespace

std::vector<ShapeIssue> ModelSpec::ShapeIssues() const {
  std::vector<ShapeIssue> out = PositivityIssues(*this);
  if (!out.empty()) return out;
  if (hidden % heads != 0) {
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
  return models_.Find(name_or_alias);
}

std::vector<std::string> ModelCatalog::Names() const { return models_.Names(); }
std::vector<std::string> ModelCatalog::NamesAndAliases() const { return models_.NamesAndAliases(); }
std::vector<const ModelSpec*> ModelCatalog::Models() const { return models_.Entries(); }

}  // namespace dlsim::model
