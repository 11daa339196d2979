// Dynamic attention sparsity of a diffusion transformer (DSV, arXiv 2502.07590; issue 15): which fraction
// of the key-value pairs each head of each block computes, as a distribution that changes over training.
//
// DSV observes that most attention scores of a video DiT are negligible, that the share grows as training
// goes on, and that it differs between heads, blocks and query positions. Its stage 1 trains low-rank
// predictors next to dense attention; stage 2 computes only the critical key-value pairs the predictors
// pick. The paper gives no per-head numbers, so the distribution here is a model with its knobs in the
// scenario (docs/dit.md#attention-sparsity):
//   ramp(p)       = 0 for p <= dense_until, 1 for p >= target_at, linear between (p: training progress);
//   s[layer][h]   = ramp(p) x clamp(target + head_spread x z, 0, max_sparsity), z ~ N(0, 1) per (layer,
//   head); d[layer][h][b] = (1 - s[layer][h]) x w_b / mean(w),  w_b = max(0.05, 1 + block_spread x z_b) per
//   query
//                  block, clamped to [1 - max_sparsity, 1] (the head's mean density stays 1 - s unless a
//                  block saturates).
// At ramp 0 every density is exactly 1 (dense attention).
//
// Thread-safe: pure functions of their arguments (the seed included).
#ifndef DLSIM_TRAIN_ATTENTION_SPARSITY_H_
#define DLSIM_TRAIN_ATTENTION_SPARSITY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dlsim::train {

struct SparsityOptions {
  // The distribution (see above).
  double target = 0.9;         // mean fraction of key-value pairs skipped once the ramp is complete
  double head_spread = 0.08;   // standard deviation across (layer, head) before clamping
  double block_spread = 0.2;   // relative spread of a query block's density within a head
  double max_sparsity = 0.98;  // no head skips more
  double progress = 1.0;       // where in training the simulated step is, in [0, 1]
  double dense_until = 0.1;    // stage 1: dense attention while the predictors learn
  double target_at = 0.4;      // the ramp reaches `target` here
  // DSV's cost terms (docs/dit.md#sparse-attention-cost).
  int predictor_rank = 16;         // rank r of the per-head low-rank query and key predictors
  double kernel_efficiency = 0.8;  // sparse-kernel throughput per computed pair, relative to dense
  double kv_union = 2.0;           // needed remote K/V fraction = min(1, kv_union x the queries' density)
  int blocks_per_rank = 4;         // query blocks per context-parallel rank in the work matrix (>= 1)
  uint64_t seed = 1;
  // Layers that run dense attention whatever the draw (DSV's dispatcher runs a layer sparse only when
  // its profiled sparsity passes a threshold; its artifact's 2.7B model keeps 5 of 32 layers dense).
  // Each in [0, the model's layers) (train/layout_check.h).
  std::vector<int> dense_layers;
};

// ramp(progress) x target: the mean sparsity before clamping and per-head spread.
double RampFactor(const SparsityOptions& o);

// Densities (1 - sparsity) of every (layer, head, query block), row-major.
struct SparsityMap {
  int layers = 0, heads = 0, blocks = 0;
  std::vector<double> density;  // layers * heads * blocks
  double At(int l, int h, int b) const { return density[(static_cast<size_t>(l) * heads + h) * blocks + b]; }
  // Mean density of head h of layer l over its query blocks, and the mean sparsity of the whole map.
  double HeadDensity(int l, int h) const;
  double MeanSparsity() const;
};

// Draws the map for `layers` x `heads` x `blocks` from o (deterministic in o.seed).
SparsityMap DrawSparsity(const SparsityOptions& o, int layers, int heads, int blocks);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_ATTENTION_SPARSITY_H_
