// Transformer model shapes and the model catalog.
//
// A ModelSpec is the architecture only (no parallelism, no batch). Catalog entries live in
// data/catalog/models.yaml (embedded); a scenario may name one and override any shape key.
//
//   const dlsim::model::ModelSpec& m = *models.Find("llama3-70b").value();
//   double n = m.ParameterCount();
#ifndef DLSIM_MODEL_MODEL_SPEC_H_
#define DLSIM_MODEL_MODEL_SPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/named_table.h"
#include "dlsim/core/result.h"
#include "dlsim/model/dit_spec.h"

namespace dlsim::model {

enum class Arch {
  kDecoder,
  kEncoder,
  kDit
};                                         // GPT/Llama (causal), BERT (bidirectional), diffusion transformer
enum class Norm { kLayerNorm, kRmsNorm };  // LayerNorm has weight + bias, RMSNorm weight only
enum class PositionEmbedding { kLearned, kRope, kNone };  // kLearned adds a max_seq_len x hidden table

std::string_view ArchName(Arch a);                            // "decoder" | "encoder" | "dit"
std::string_view NormName(Norm n);                            // "layernorm" | "rmsnorm"
std::string_view PositionEmbeddingName(PositionEmbedding p);  // "learned" | "rope" | "none"

// One broken shape rule of a ModelSpec. `keys`: the fields (= scenario and catalog keys) the rule is
// about, most specific first, so a reader can point at the first one its file gives; `message` names
// the values, e.g. "hidden 64 is not divisible by heads 3 (head_dim = hidden / heads)".
struct ShapeIssue {
  std::vector<std::string_view> keys;
  std::string message;
};

// Mixture-of-experts MLP (issue 15): every layer from `first_dense_layers` on replaces its dense MLP
// with `experts` routed experts of width `expert_ffn_hidden` (each token goes to `top_k` of them,
// chosen by a linear router) plus `shared_experts` always-on experts of the same width. experts == 0:
// a dense model. capacity_factor 0: dropless (every routed token is computed); c > 0: an expert
// computes at most ceil(c * routed tokens / experts) tokens of its expert-parallel group and drops the
// rest (Switch/GShard capacity).
struct MoeSpec {
  int experts = 0;
  int top_k = 0;
  int expert_ffn_hidden = 0;
  int shared_experts = 0;
  int first_dense_layers = 0;  // DeepSeek-V3: the first 3 layers keep a dense MLP of ffn_hidden
  double capacity_factor = 0;
  bool enabled() const { return experts > 0; }
};

// Multi-head latent attention (DeepSeek-V2/V3): queries through a low-rank q_lora_rank bottleneck
// (0: a full projection), keys and values through a shared kv_lora_rank latent; per head, a
// qk_nope_head_dim + qk_rope_head_dim query/key and a v_head_dim value. kv_lora_rank == 0: not MLA.
struct MlaSpec {
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  bool enabled() const { return kv_lora_rank > 0; }
};

struct ModelSpec {
  std::string name;
  std::vector<std::string> aliases;
  Arch arch = Arch::kDecoder;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;    // == heads for multi-head attention; fewer for GQA
  int ffn_hidden = 0;  // default 4 * hidden
  int vocab = 0;
  bool gated_mlp = false;  // SwiGLU: three matrices in the MLP
  bool tied_embeddings = false;
  bool attention_bias = false;  // bias on the QKV projections (Qwen2)
  bool linear_bias = false;     // bias on every linear layer (GPT-2/3, BERT); implies attention_bias
  Norm norm = Norm::kLayerNorm;
  PositionEmbedding position_embedding = PositionEmbedding::kRope;
  double dropout = 0.0;  // > 0 adds dropout operators and masks to activations
  int max_seq_len = 0;   // longest trained context; size of the learned position table
  std::string source;    // where the shape comes from (paper table, HF config.json)
  // Width of one attention head when it is not hidden / heads (Qwen3: 128 with hidden 2048 and 32
  // heads); 0: hidden / heads.
  int explicit_head_dim = 0;
  // Sliding-window (local) attention: a windowed layer's query sees at most `sliding_window` keys, itself and
  // the sliding_window - 1 before it (Mistral 7B v0.1: 4096 in every layer). 0: every layer attends to the
  // whole context. `sliding_window_pattern` N >= 2 interleaves global layers: layer i (0-based) is global
  // when (i + 1) % N == 0, as Hugging Face's sliding_window_pattern (Gemma 2: 2, Gemma 3: 6); 0: every layer
  // windowed.
  int sliding_window = 0;
  int sliding_window_pattern = 0;
  MoeSpec moe;
  MlaSpec mla;
  DitSpec dit;  // arch kDit: the diffusion-transformer fields (model/dit_spec.h); vocab is then unused

  // Width of one head: explicit_head_dim, else hidden / heads. Under MLA, the mean of the query/key
  // width (nope + rope) and the value width, so that 4 * s * heads * head_dim() counts the QK^T and AV
  // FLOPs exactly and 2 * heads * head_dim() is the K plus V width.
  int head_dim() const;
  // Width of all query heads together (heads * head_dim(); == hidden for plain multi-head attention)
  // and of the attention output that the output projection reads (heads * v_head_dim under MLA).
  double QueryWidth() const;
  double AttentionOutputWidth() const;
  // Whether layer `i` (0-based) attends through the sliding window, how many layers do, and their share of
  // all layers (0 without a window).
  bool IsWindowedLayer(int i) const {
    return sliding_window > 0 && (sliding_window_pattern < 2 || (i + 1) % sliding_window_pattern != 0);
  }
  int WindowedLayers() const;
  // Some layers windowed and some global (Gemma 2/3), not a window in every layer (Mistral v0.1).
  bool HasInterleavedWindow() const { return WindowedLayers() > 0 && WindowedLayers() < layers; }
  double WindowedLayerShare() const;
  // Layers with a MoE MLP (0 for a dense model) and whether layer `i` (0-based) is one.
  int MoeLayers() const;
  bool IsMoeLayer(int i) const { return moe.enabled() && i >= moe.first_dense_layers; }
  // Parameters of the attention block (projections, and MLA's latent norms), of one routed expert,
  // and of a MoE layer's MLP (router, routed and shared experts).
  double AttentionParameters() const;
  double ExpertParameters() const;
  double MoeMlpParameters() const;
  // Parameters of one MoE layer (attention, MoE MLP, two norms); LayerParameters() is a dense one.
  double MoeLayerParameters() const;
  // Parameters one token passes through: ParameterCount() with only top_k routed experts per MoE
  // layer (the "activated" parameters of MoE papers; == ParameterCount() for a dense model).
  double ActiveParameterCount() const;
  // Parameters (a count, not bytes) of one transformer layer (attention, MLP, two norms), of
  // the input embedding (tokens, plus positions when learned), of the output head (0 when
  // tied) and final norm, and of the whole model:
  //   ParameterCount = (layers - MoeLayers) * LayerParameters + MoeLayers * MoeLayerParameters
  //                    + EmbeddingParameters + HeadParameters.
  // BERT's pooler and MLM transform are not counted. A DiT (arch kDit, model/dit.h): LayerParameters is
  // its first block (cross-attention or double-stream), EmbeddingParameters and HeadParameters the parts
  // before and after the blocks, ParameterCount = DitParameterCount.
  double LayerParameters() const;
  double EmbeddingParameters() const;
  double HeadParameters() const;
  double ParameterCount() const;
  // The shape rules, the one place they live (train and serve scenarios and the catalog use them):
  // every field positive; then heads divide hidden (unless head_dim is explicit), kv_heads divide heads
  // (so kv_heads <= heads), 0 <= dropout < 1, max_seq_len >= 0 and positive for learned positions; for
  // MoE, 1 <= top_k <= experts, expert_ffn_hidden > 0, 0 <= first_dense_layers < layers, shared_experts
  // >= 0, capacity_factor >= 0; for MLA, positive head widths; for a DiT (vocab not needed), positive
  // text_dim, text_tokens, latent channels, patch and VAE factors, 0 <= double_blocks <= layers and 0
  // with cross_attention, a complete refiner when it has blocks; sliding_window >= 0 and only on a decoder,
  // sliding_window_pattern 0 or >= 2 and only with a window. Every broken rule, in
  // that order; empty when the shape is valid. When a field is not positive only those are returned
  // (the other rules would divide by it).
  std::vector<ShapeIssue> ShapeIssues() const;
  // Ok, or the first of ShapeIssues() as kInvalidArgument "model 'NAME': MESSAGE".
  Status Validate() const;
};

// Whether `name` is a Hugging Face hub id ("org/name"): catalog aliases include the hub ids of the published
// configs the entries were written from (data/catalog/models.yaml).
bool IsHubId(std::string_view name);
// Why a hub id dlsim does not know is refused and how to bring its config in (dlsim catalog import).
std::string HubIdHint(std::string_view name);

// Models by canonical name or alias. Thread-safe for concurrent const use; pointers returned
// by Find stay valid until the entry is replaced.
class ModelCatalog {
 public:
  // Adds or replaces (same canonical name) an entry. Error when an alias collides with another
  // entry's name or alias.
  Status Add(ModelSpec spec);
  // Error (kNotFound): "unknown model 'x' (did you mean 'y'?); known: ...".
  // Error (kNotFound): no such name or alias; for a Hugging Face hub id ("org/name") the message is
  // HubIdHint's.
  Result<const ModelSpec*> Find(std::string_view name_or_alias) const;
  std::vector<std::string> Names() const;            // canonical, sorted
  std::vector<std::string> NamesAndAliases() const;  // for suggestions
  std::vector<const ModelSpec*> Models() const;      // sorted by canonical name

 private:
  NamedTable<ModelSpec> models_{"model"};
};

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_MODEL_SPEC_H_
