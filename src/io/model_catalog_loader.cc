// The model catalog's YAML: `models:` entries and the shape keys a scenario may override.
#include <algorithm>
#include <string>
#include <vector>

#include "catalog_entries.h"
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
                                                 "max_seq_len"};
  return kKeys;
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
