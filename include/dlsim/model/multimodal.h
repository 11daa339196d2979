// Large multimodal models (issue 15): a vision encoder, a projector and an LLM, each a module with its
// own layers. The vision encoder is a ViT (an encoder-style, bidirectional transformer over the patches of
// an image); the projector maps its output (spatially merged, where the model merges) to LLM tokens; the LLM
// is a catalog ModelSpec. Shapes only: no parallelism, no batch. Catalog entries live under
// `multimodal_models:` in data/catalog/models.yaml (docs/catalog.md).
//
//   const model::MultimodalSpec& m = *cat.multimodal.Find("qwen2.5-vl-7b").value();
//   double n = m.ParameterCount();                    // vision + projector + LLM
//   int64_t t = m.LlmTokensPerImage();                // 256 for a 448 x 448 image
//   SampleFlops f = MultimodalForwardFlops(m, {.images = 2, .text_tokens = 300});
//
// Values; functions are thread-safe.
#ifndef DLSIM_MODEL_MULTIMODAL_H_
#define DLSIM_MODEL_MULTIMODAL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/named_table.h"
#include "dlsim/core/result.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::model {

// The vision tower: a patch embedding (a convolution of kernel = stride = patch_size, over
// temporal_patch frames: Qwen2.5-VL repeats a still image into 2), optional class token and learned
// position table, `layers` pre-norm transformer layers over the patches of one image, optional norms before
// and after them. Window attention (Qwen2.5-VL): every layer not listed in full_attention_layers attends
// within windows of (window_size / patch_size)^2 patches.
struct VisionEncoderSpec {
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int ffn_hidden = 0;
  bool gated_mlp = false;  // SwiGLU-style MLP (three matrices)
  Norm norm = Norm::kLayerNorm;
  bool qkv_bias = false;     // bias on the Q, K, V projections
  bool linear_bias = false;  // bias on the attention output projection and the MLP matrices
  bool qk_norm = false;      // a norm over all query heads and one over all key heads (InternViT)
  bool layer_scale = false;  // two learned per-channel scales per layer (InternViT's ls1, ls2)
  int patch_size = 14;
  int temporal_patch = 1;  // frames one patch spans
  int channels = 3;
  bool patch_bias = false;   // bias on the patch-embedding convolution
  bool class_token = false;  // one learned token prepended to the patches (CLIP, InternViT)
  PositionEmbedding position_embedding = PositionEmbedding::kNone;  // learned: (patches + class) x hidden
  bool pre_norm = false;    // a norm after the embeddings (CLIP's pre_layrnorm)
  bool final_norm = false;  // a norm after the last layer (CLIP's post_layernorm)
  int image_size = 224;     // pixels per side of one image (one tile) in the modality mix
  int window_size = 0;      // pixels per side of an attention window; 0: full attention everywhere
  std::vector<int> full_attention_layers;  // 0-based layers with full attention under windows
  // Which layer's output feeds the projector, Python style: -1 the last, -2 the one before (LLaVA). The
  // layers after it are parameters that training never runs.
  int select_layer = -1;

  int64_t PatchesPerImage() const;         // (image_size / patch_size)^2
  int64_t TokensPerImage() const;          // through the encoder layers: patches (+ the class token)
  int ComputedLayers() const;              // layers + select_layer + 1
  int64_t WindowPatches() const;           // patches one windowed layer attends over; 0: no windows
  bool IsFullAttentionLayer(int i) const;  // no windows, or i listed
  int FullAttentionLayers() const;         // among the computed layers
  double LayerParameters() const;          // one transformer layer, with the flags above
  double EmbeddingParameters() const;      // patch convolution, class token, position table, pre norm
  double ParameterCount() const;           // layers * LayerParameters + embeddings + final norm
  // The transformer layer as a ModelSpec (arch encoder, `ComputedLayers()` layers, vocab 1): what the
  // operator graph (BuildLayerOps) and the training cost model price; biases and norms as above.
  ModelSpec LayerShape() const;
};

enum class ProjectorNorm { kNone, kLayerNorm, kRmsNorm };
std::string_view ProjectorNormName(ProjectorNorm n);  // "none" | "layernorm" | "rmsnorm"

// The projector: spatial_merge x spatial_merge neighbouring patches are concatenated into one token (2 x 2
// in Qwen2.5-VL's PatchMerger and InternVL's pixel shuffle; 1 in LLaVA), optionally normalized, then a
// two-layer MLP (linear, GELU, linear) maps it to the LLM width. The class token is dropped.
struct ProjectorSpec {
  int spatial_merge = 1;
  ProjectorNorm norm = ProjectorNorm::kNone;
  bool norm_merged =
      false;       // the norm runs over the merged width (InternVL) rather than the ViT width (Qwen)
  int hidden = 0;  // width of the first linear; 0: the LLM's hidden
  bool bias = true;
};

struct MultimodalSpec {
  std::string name;
  std::vector<std::string> aliases;
  std::string source;    // where the shapes come from (HF config.json files)
  std::string llm_name;  // the catalog model the LLM was taken from
  VisionEncoderSpec vision;
  ProjectorSpec projector;
  ModelSpec llm;

  int64_t LlmTokensPerImage() const;    // PatchesPerImage / spatial_merge^2
  int64_t ProjectorInputWidth() const;  // vision.hidden * spatial_merge^2
  int64_t ProjectorHidden() const;      // projector.hidden, or llm.hidden
  double ProjectorParameters() const;
  double ParameterCount() const;  // vision + projector + LLM
  // The shape rules: the LLM's (ModelSpec::ShapeIssues); every vision size positive, heads divide hidden,
  // patch_size divides image_size, spatial_merge divides the patches per side, window_size a multiple of
  // patch_size * spatial_merge, full_attention_layers in [0, layers), select_layer in [-layers, -1],
  // projector hidden >= 0. Keys are the catalog keys ("vision.heads", "projector.spatial_merge", ...).
  std::vector<ShapeIssue> ShapeIssues() const;
  Status Validate() const;  // first issue as kInvalidArgument "multimodal model 'NAME': MESSAGE"
};

// What one training sample holds: `images` images (tiles) at the vision encoder's image_size, and text.
struct MultimodalSample {
  int images = 0;
  int64_t text_tokens = 0;
  bool operator==(const MultimodalSample&) const = default;
};

// Forward FLOPs of one sample (matmuls and attention, the MFU convention): the vision encoder over each
// image (patch convolution, ComputedLayers layers: 2 x matmul parameters x tokens, attention 4 x tokens x
// keys x hidden with keys = the image's tokens or the window), the projector over the merged tokens, and
// the LLM over text + images x LlmTokensPerImage tokens as one sequence (ModelForwardFlops, no causal
// halving).
struct SampleFlops {
  double vision = 0, projector = 0, llm = 0;
  double Total() const { return vision + projector + llm; }
};
SampleFlops MultimodalForwardFlops(const MultimodalSpec& m, const MultimodalSample& s);

// The operators of the projector (norm, the merged-token linear, GELU, the output linear), per LLM token
// (one merged token), in execution order; a ModelSpec-free op list that train prices like a layer's.
std::vector<Op> BuildProjectorOps(const MultimodalSpec& m, const LayerOptions& o);
// The patch embedding (a GEMM over channels x temporal_patch x patch^2 inputs per patch) and the
// embedding-side memory ops, per encoder token.
std::vector<Op> BuildPatchEmbeddingOps(const MultimodalSpec& m, const LayerOptions& o);

// Multimodal models by canonical name or alias; the ModelCatalog's contract.
class MultimodalCatalog {
 public:
  Status Add(MultimodalSpec spec);  // validates; errors as ModelCatalog::Add
  Result<const MultimodalSpec*> Find(std::string_view name_or_alias) const;
  std::vector<std::string> Names() const;
  std::vector<const MultimodalSpec*> Models() const;

 private:
  NamedTable<MultimodalSpec> models_{"multimodal model"};
};

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_MULTIMODAL_H_
