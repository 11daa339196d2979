// Hugging Face `config.json` -> model::ModelSpec: the shape of a model as its authors publish it.
//
//   auto spec = io::LoadHfConfig("configs/Llama-3.1-8B/config.json");   // Result<model::ModelSpec>
//   // in a scenario:  model: {hf_config: configs/Llama-3.1-8B/config.json}
//   // as a catalog entry:  dlsim catalog import config.json > my-models.yaml
//
// Families by `model_type`:
//   llama, mistral, qwen2, qwen3   decoder, SwiGLU (gated MLP), RMSNorm, RoPE; num_key_value_heads
//                                  (default: heads); tie_word_embeddings (default false); QKV bias for
//                                  qwen2 (always) and llama/mistral when attention_bias is true
//   gpt2                           decoder, n_layer / n_embd / n_head / n_inner (default 4 n_embd),
//                                  learned positions (n_positions), LayerNorm, biases, tied embeddings
//   opt                            decoder, ffn_dim, learned positions, LayerNorm, biases, tied by default
//   bert                           encoder, intermediate_size, learned positions, LayerNorm, biases, tied
// The dropout is the config's hidden/residual dropout (hidden_dropout_prob, resid_pdrop, dropout).
// Mixture-of-experts types (mixtral, qwen2_moe, qwen3_moe, deepseek_v3) are recognised and refused:
// the model catalog has no expert layers yet. A head_dim other than hidden / heads is refused (the
// attention model assumes it). Errors name the file, the key, what was expected; JSON syntax errors
// give the line and column. `source` is set to "HF config.json: FILE".
#ifndef DLSIM_IO_HF_CONFIG_H_
#define DLSIM_IO_HF_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::io {

// `name` becomes the spec's name (callers pass the file's folder or a user's choice).
Result<model::ModelSpec> ParseHfConfig(std::string_view json_text, const std::string& file_name,
                                       const std::string& name);
// Reads the file (io::ReadTextFile: regular files up to the input limit) and parses it; the name is
// the config's folder ("Llama-3.1-8B" for Llama-3.1-8B/config.json) or the file's stem.
Result<model::ModelSpec> LoadHfConfig(const std::string& path);

// The model types ParseHfConfig accepts, sorted.
std::vector<std::string> SupportedHfModelTypes();

// The `hf_config: FILE` key of a scenario's model section (relative to the scenario's folder): true
// when it was given and loaded into `spec`; errors (unreadable, invalid, given with `name`) go to
// the document at that key.
bool ReadHfConfigKey(const MapReader& m, model::ModelSpec& spec);

// One catalog entry (the models.yaml format of docs/catalog.md) for `spec`.
std::string FormatModelCatalogEntry(const model::ModelSpec& spec);

}  // namespace dlsim::io

#endif  // DLSIM_IO_HF_CONFIG_H_
