#include "dlsim/train/attention_sparsity.h"

#include <algorithm>
#include <string>

#include "dlsim/core/rng.h"

namespace dlsim::train {

double RampFactor(const SparsityOptions& o) {
  if (o.progress <= o.dense_until) return 0;
  if (o.progress >= o.target_at || o.target_at <= o.dense_until) return 1;
  return (o.progress - o.dense_until) / (o.target_at - o.dense_until);
}

double SparsityMap::HeadDensity(int l, int h) const {
  double sum = 0;
  for (int b = 0; b < blocks; ++b) sum += At(l, h, b);
  return blocks > 0 ? sum / blocks : 1;
}

double SparsityMap::MeanSparsity() const {
  double sum = 0;
  for (double d : density) sum += d;
  return density.empty() ? 0 : 1 - sum / static_cast<double>(density.size());
}

namespace {

// Query-block weights of one head (mean 1 before clamping the densities).
std::vector<double> BlockWeights(const SparsityOptions& o, Rng& rng, int blocks) {
  std::vector<double> w(blocks);
  double sum = 0;
  for (double& x : w) {
    x = std::max(0.05, 1 + o.block_spread * SampleNormal(rng, 0, 1));
    sum += x;
  }
  for (double& x : w) x *= blocks / sum;
  return w;
}

}  // namespace

SparsityMap DrawSparsity(const SparsityOptions& o, int layers, int heads, int blocks) {
  SparsityMap m;
  m.layers = layers;
  m.heads = heads;
  m.blocks = blocks;
  m.density.assign(static_cast<size_t>(layers) * heads * blocks, 1.0);
  const double ramp = RampFactor(o);
  if (ramp <= 0) return m;
  const Rng root(o.seed);
  for (int l = 0; l < layers; ++l) {
    if (std::find(o.dense_layers.begin(), o.dense_layers.end(), l) != o.dense_layers.end()) continue;
    Rng rng = root.Stream("sparsity/layer" + std::to_string(l));
    for (int h = 0; h < heads; ++h) {
      const double s =
          ramp * std::clamp(o.target + o.head_spread * SampleNormal(rng, 0, 1), 0.0, o.max_sparsity);
      const std::vector<double> w = BlockWeights(o, rng, blocks);
      for (int b = 0; b < blocks; ++b)
        m.density[(static_cast<size_t>(l) * heads + h) * blocks + b] =
            std::clamp((1 - s) * w[b], 1 - o.max_sparsity, 1.0);
    }
  }
  return m;
}

}  // namespace dlsim::train
