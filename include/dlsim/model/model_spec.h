// Transformer model shapes and the model catalog.
//
// A ModelSpec is the architecture only (no parallelism, no batch). Catalog entries live in
// data/models.yaml (embedded); a scenario may name one and override any shape key.
//
//   const dlsim::model::ModelSpec& m = *models.Find("llama3-70b").value();
//   double n = m.ParameterCount();
#ifndef DLSIM_MODEL_MODEL_SPEC_H_
#define DLSIM_MODEL_MODEL_SPEC_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::model {

enum class Arch { kDecoder, kEncoder };  // GPT/Llama (causal) vs BERT (bidirectional)

struct ModelSpec {
  std::string name;
  std::vector<std::string> aliases;
  Arch arch = Arch::kDecoder;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;          // == heads for multi-head attention; fewer for GQA
  int ffn_hidden = 0;        // default 4 * hidden
  int vocab = 0;
  bool gated_mlp = false;    // SwiGLU: three matrices in the MLP
  bool tied_embeddings = false;
  bool attention_bias = false;
  double dropout = 0.0;      // > 0 adds dropout operators and masks to activations
  int max_seq_len = 0;       // informational

  int head_dim() const { return hidden / heads; }
  // Parameters of one transformer layer, of the embedding, and of the whole model.
  double LayerParameters() const;
  double EmbeddingParameters() const;
  double ParameterCount() const;
  // Checks positivity and shape consistency (heads divide hidden, kv_heads divide heads).
  Status Validate() const;
};

class ModelCatalog {
 public:
  Status Add(ModelSpec spec);  // adds or replaces by canonical name
  Result<const ModelSpec*> Find(std::string_view name_or_alias) const;
  std::vector<std::string> Names() const;
  std::vector<std::string> NamesAndAliases() const;

 private:
  std::map<std::string, ModelSpec> models_;
  std::map<std::string, std::string> alias_;
};

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_MODEL_SPEC_H_
