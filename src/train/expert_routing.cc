#include "dlsim/train/expert_routing.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

namespace dlsim::train {
namespace {

// The balanced router: every expert the same share (what the auxiliary load-balancing loss aims at).
class UniformSkew final : public RoutingSkew {
 public:
  Result<std::vector<double>> Weights(const RoutingOptions&, int experts, Rng&) const override {
    return std::vector<double>(experts, 1.0);
  }
  bool exact() const override { return true; }
};

// Expert popularity ~ 1 / rank^s; which expert holds which rank is shuffled per layer by the seed.
class ZipfSkew final : public RoutingSkew {
 public:
  Result<std::vector<double>> Weights(const RoutingOptions& o, int experts, Rng& rng) const override {
    std::vector<int> rank(experts);
    std::iota(rank.begin(), rank.end(), 0);
    for (int i = experts - 1; i > 0; --i)
      std::swap(rank[i], rank[rng.NextBelow(static_cast<uint64_t>(i) + 1)]);
    std::vector<double> w(experts);
    for (int e = 0; e < experts; ++e) w[e] = 1.0 / std::pow(rank[e] + 1.0, o.zipf_s);
    return w;
  }
};

// A measured histogram: tokens (or a share) per expert, the same for every layer.
class HistogramSkew final : public RoutingSkew {
 public:
  Result<std::vector<double>> Weights(const RoutingOptions& o, int experts, Rng&) const override {
    if (static_cast<int>(o.histogram.size()) != experts)
      return Error::InvalidArgument("routing.histogram_file has " + std::to_string(o.histogram.size()) +
                                    " entries; the model has " + std::to_string(experts) + " experts");
    return o.histogram;
  }
};

// Turns weights into shares a router can produce: each token picks top_k distinct experts, so no expert
// receives more than 1/top_k of the copies. Water-filling: cap the largest, spread what they lose over the
// others in proportion to their weights (evenly over weightless ones when none is left), until none exceeds.
void CapShares(std::vector<double>& w, int top_k) {
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= total;
  const double cap = 1.0 / top_k;
  std::vector<bool> capped(w.size(), false);
  for (size_t round = 0; round < w.size(); ++round) {
    double fixed = 0, free_weight = 0;
    size_t free_count = 0;
    for (size_t e = 0; e < w.size(); ++e) {
      if (!capped[e] && w[e] > cap * (1 + 1e-12)) capped[e] = true;
      if (capped[e]) {
        fixed += cap;
      } else {
        free_weight += w[e];
        ++free_count;
      }
    }
    if (fixed == 0 || free_count == 0) return;
    for (size_t e = 0; e < w.size(); ++e) {
      if (capped[e]) {
        w[e] = cap;
      } else {
        w[e] = free_weight > 0 ? w[e] * (1 - fixed) / free_weight : (1 - fixed) / free_count;
      }
    }
    if (std::none_of(w.begin(), w.end(), [&](double x) { return x > cap * (1 + 1e-12); })) return;
  }
}

// Routed copies per shard of one micro-batch through one layer: a multinomial over the shards with
// weights `shard_w`, drawn as sequential binomials in their normal approximation (the counts are
// thousands); exactly the shares when `exact`.
void DrawShards(int64_t copies, const std::vector<double>& shard_w, double total, bool exact, Rng& rng,
                std::vector<int64_t>& out) {
  const int ep = static_cast<int>(shard_w.size());
  if (exact) {
    std::fill(out.begin(), out.end(), copies / ep);
    return;
  }
  int64_t left = copies;
  double rest = total;
  for (int i = 0; i + 1 < ep; ++i) {
    const double q = rest > 0 ? std::clamp(shard_w[i] / rest, 0.0, 1.0) : 0.0;
    const double mean = left * q, sd = std::sqrt(left * q * (1 - q));
    const int64_t n = std::clamp<int64_t>(std::llround(SampleNormal(rng, mean, sd)), 0, left);
    out[i] = n;
    left -= n;
    rest -= shard_w[i];
  }
  out[ep - 1] = left;
}

// Folds one layer's per-shard counts into `d`.
void Record(const std::vector<int64_t>& received, const std::vector<double>& w,
            const std::vector<double>& shard_w, int per_shard, double capacity, RoutingDraws& d,
            int64_t& slowest, int64_t& dropped) {
  slowest = 0;
  for (size_t i = 0; i < received.size(); ++i) {
    const int64_t computed =
        ComputedCopies(received[i], w.data() + i * per_shard, per_shard, shard_w[i], capacity);
    slowest = std::max(slowest, computed);
    d.shard_copies[i] += static_cast<double>(computed);
    dropped += received[i] - computed;
  }
}

// The hottest shard and the load figures of `d` (balanced: one balanced shard's copies).
void Summarize(int64_t balanced, int64_t copies, int64_t dropped, RoutingDraws& d) {
  const double draws = static_cast<double>(d.micro_batches) * d.moe_layers;
  d.hottest_shard = static_cast<int>(std::max_element(d.shard_copies.begin(), d.shard_copies.end()) -
                                     d.shard_copies.begin());
  d.hottest_load = d.shard_copies[d.hottest_shard] / (static_cast<double>(balanced) * draws);
  double sum = 0, most = 0;
  for (const auto& mb : d.slowest)
    for (int64_t x : mb) {
      const double load = static_cast<double>(x) / balanced;
      sum += load;
      most = std::max(most, load);
    }
  d.mean_slowest_load = sum / draws;
  d.max_slowest_load = most;
  d.dropped_fraction = static_cast<double>(dropped) / (static_cast<double>(copies) * draws);
}

}  // namespace

void RegisterRoutingSkews(RoutingSkewRegistry& reg) {
  reg.RegisterBuiltin("uniform",
                      "balanced router: every expert receives exactly its share of the routed tokens",
                      [] { return std::make_unique<UniformSkew>(); });
  reg.RegisterBuiltin("zipf",
                      "expert popularity ~ 1/rank^zipf_s, ranks shuffled per layer by the seed; shard counts "
                      "drawn per micro-batch",
                      [] { return std::make_unique<ZipfSkew>(); });
  reg.RegisterBuiltin("histogram",
                      "tokens per expert as measured (routing.histogram_file); shard counts drawn per "
                      "micro-batch",
                      [] { return std::make_unique<HistogramSkew>(); });
}

int64_t ComputedCopies(int64_t received, const double* w, int n, double shard_weight, double capacity) {
  if (capacity <= 0 || received <= 0 || shard_weight <= 0) return received;
  double kept = 0;
  for (int e = 0; e < n; ++e) kept += std::min(static_cast<double>(received) * w[e] / shard_weight, capacity);
  return std::min<int64_t>(received, std::llround(kept));
}

Result<RoutingDraws> DrawRouting(const RoutingSkew& skew, const RoutingOptions& o, const ExpertGroup& g,
                                 int micro_batches, int moe_layers, uint64_t seed) {
  RoutingDraws d;
  d.micro_batches = micro_batches;
  d.moe_layers = moe_layers;
  d.slowest.assign(micro_batches, std::vector<int64_t>(moe_layers, 0));
  d.shard_copies.assign(g.ep, 0.0);
  const int per_shard = g.experts / g.ep;
  const int64_t copies = g.Copies();
  const double capacity =
      g.capacity_factor > 0 ? std::ceil(g.capacity_factor * static_cast<double>(copies) / g.experts) : 0;
  const Rng root = Rng(seed).Stream("moe/routing");
  std::vector<int64_t> received(g.ep);
  int64_t dropped = 0;
  for (int l = 0; l < moe_layers; ++l) {
    Rng layer_rng = root.Stream("layer " + std::to_string(l));
    DLSIM_ASSIGN_OR_RETURN(std::vector<double> w, skew.Weights(o, g.experts, layer_rng));
    if (!skew.exact()) CapShares(w, g.top_k);
    std::vector<double> shard_w(g.ep, 0.0);
    for (int e = 0; e < g.experts; ++e) shard_w[e / per_shard] += w[e];
    const double total = std::accumulate(shard_w.begin(), shard_w.end(), 0.0);
    Rng draws = root.Stream("draws " + std::to_string(l));
    for (int mb = 0; mb < micro_batches; ++mb) {
      DrawShards(copies, shard_w, total, skew.exact(), draws, received);
      Record(received, w, shard_w, per_shard, capacity, d, d.slowest[mb][l], dropped);
    }
  }
  Summarize(g.BalancedShard(), copies, dropped, d);
  return d;
}

}  // namespace dlsim::train
