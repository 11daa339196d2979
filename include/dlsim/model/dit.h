// Diffusion transformers (issue 15): latent token counts, parameter counts, FLOPs per sample and the
// operators of each block kind. The shape fields are in dit_spec.h; the formulas in docs/dit.md.
//
//   const ModelSpec& wan = *models.Find("wan2.1-t2v-14b").value();
//   int64_t s = LatentTokens(wan.dit, {.frames = 81, .height = 720, .width = 1280});  // 75,600
//   double f = DitForwardFlops(wan, s, wan.dit.text_tokens);                          // one sample
//
// Pure functions; thread-safe.
#ifndef DLSIM_MODEL_DIT_H_
#define DLSIM_MODEL_DIT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::model {

enum class DitBlockKind { kCrossAttention, kDoubleStream, kSingleStream };
std::string_view DitBlockKindName(DitBlockKind k);  // "cross_attention" | "double_stream" | "single_stream"

// The kind of block i (0-based) of a DiT, and how many blocks of a kind the model has.
DitBlockKind DitBlockOf(const ModelSpec& m, int i);
int DitBlocksOf(const ModelSpec& m, DitBlockKind k);

// A clip in pixels (frames 1: an image) and the latent grid it becomes. With a causal VAE the first
// frame is encoded alone: latent frames = 1 + ceil((frames - 1) / vae_temporal); otherwise
// ceil(frames / vae_temporal). Height and width: ceil(pixels / vae_spatial). Tokens: each latent
// extent divided by its patch, rounded up, multiplied together.
struct VideoClip {
  int frames = 1;
  int height = 0;
  int width = 0;
};
struct LatentGrid {
  int64_t frames = 0, height = 0, width = 0;  // latent pixels
  int64_t tokens = 0;                         // after patchify
};
LatentGrid LatentGridOf(const DitSpec& d, const VideoClip& clip);
int64_t LatentTokens(const DitSpec& d, const VideoClip& clip);

// Parameters (counts) of one block of kind `k`, of the parts before the blocks (patch embedding,
// timestep / pooled / guidance MLPs, text refiner and projection, shared modulation), of the final layer,
// of the text refiner alone, and of the whole DiT:
//   DitParameterCount = sum over kinds of DitBlocksOf(k) * DitBlockParameters(k)
//                       + DitEmbeddingParameters + DitHeadParameters.
// adaLN LayerNorms carry no weights (elementwise_affine = False in every reference implementation).
double DitBlockParameters(const ModelSpec& m, DitBlockKind k);
// Of which the adaLN modulation (Linear(h, k h) per stream, or the k x h tables): it runs whole on every
// tensor-parallel rank (one row per sample), so tensor parallelism does not split it.
double DitModulationParameters(const ModelSpec& m, DitBlockKind k);
double DitEmbeddingParameters(const ModelSpec& m);
double DitHeadParameters(const ModelSpec& m);
double DitRefinerParameters(const ModelSpec& m);
double DitParameterCount(const ModelSpec& m);

// Forward FLOPs of one sample of `latent` latent tokens and `text` text tokens: 2 x (matmul weights) x
// (the rows each weight multiplies: latent, text, joint or one row per sample) plus 4 x pairs x head_dim
// x heads for every attention (self: latent^2, cross: latent x text, joint: (latent + text)^2, refiner:
// text^2). Biases, norms and elementwise work are not counted (the MFU convention).
double DitForwardFlops(const ModelSpec& m, double latent, double text);
// Of which the blocks' self or joint attention (4 x pairs x head_dim x heads: latent^2 per cross-attention
// block, (latent + text)^2 per MMDiT block): what attention sparsity skips a share of.
double DitSelfAttentionFlops(const ModelSpec& m, double latent, double text);

// Operators of one block of kind `k` (per latent token unless Op::tokens says otherwise), of the parts
// before the blocks and of the final layer with the flow-matching loss, in execution order.
std::vector<Op> BuildDitBlockOps(const ModelSpec& m, DitBlockKind k, const LayerOptions& o);
std::vector<Op> BuildDitEmbeddingOps(const ModelSpec& m, const LayerOptions& o);
std::vector<Op> BuildDitHeadOps(const ModelSpec& m, const LayerOptions& o);

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_DIT_H_
