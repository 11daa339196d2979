// Data-aware MoE routing (issue 15): how a micro-batch's routed tokens fall on the expert shards.
//
// A RoutingSkew policy gives each expert's share of the routed tokens for one MoE layer ("uniform",
// "zipf", "histogram"; `dlsim list routing-skew`). DrawRouting then draws, per micro-batch and MoE
// layer, how many routed copies each expert-parallel shard of one expert-parallel group receives (a
// multinomial over the shards; experts [i * E/ep, (i+1) * E/ep) sit on shard i, as in Megatron-Core),
// applies the capacity factor, and keeps the slowest shard's count: the all-to-all synchronises the
// group every layer, so that shard sets the layer's time.
//
//   RoutingSkewRegistry reg("routing-skew");
//   RegisterRoutingSkews(reg);
//   auto skew = reg.Create("zipf").value();
//   Result<RoutingDraws> d = DrawRouting(*skew, options, geometry, micro_batches, moe_layers, seed);
//
// Deterministic for a seed; stateless policies, thread-safe for concurrent const use.
#ifndef DLSIM_TRAIN_EXPERT_ROUTING_H_
#define DLSIM_TRAIN_EXPERT_ROUTING_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/core/rng.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

class RoutingSkew {
 public:
  virtual ~RoutingSkew() = default;
  // Non-negative weights (positive sum) of the `experts` experts of one MoE layer; `layer_rng` is the
  // layer's own stream. Error (kInvalidArgument): options that do not fit (a histogram with another
  // number of entries).
  virtual Result<std::vector<double>> Weights(const RoutingOptions& o, int experts, Rng& layer_rng) const = 0;
  // True when every shard receives exactly its share (no sampling noise): the balanced router.
  virtual bool exact() const { return false; }
};

using RoutingSkewRegistry = Registry<RoutingSkew>;
// Registers "uniform", "zipf" and "histogram".
void RegisterRoutingSkews(RoutingSkewRegistry& reg);

// One expert-parallel group of a MoE layer.
struct ExpertGroup {
  int experts = 0, ep = 1, etp = 1, top_k = 1;
  int64_t tokens_per_gpu = 0;  // tokens entering the MoE block on one GPU
  double capacity_factor = 0;  // 0: dropless
  // Routed copies of the group (every GPU's tokens, top_k each) and a balanced shard's share.
  int64_t Copies() const { return tokens_per_gpu * ep * etp * top_k; }
  int64_t BalancedShard() const { return tokens_per_gpu * etp * top_k; }
};

// Copies shard `received` computes when its experts have weights w[0..n) of total `shard_weight` and
// each expert computes at most `capacity` copies (<= 0: no limit); received when dropless.
int64_t ComputedCopies(int64_t received, const double* w, int n, double shard_weight, double capacity);

struct RoutingDraws {
  int micro_batches = 0, moe_layers = 0;
  // [micro_batch][moe layer]: routed copies the slowest shard computes.
  std::vector<std::vector<int64_t>> slowest;
  std::vector<double> shard_copies;  // [ep] computed copies over all draws
  int hottest_shard = 0;             // the shard with the most copies (lowest index on ties)
  double hottest_load = 1;           // its copies over a balanced shard's, all draws
  double mean_slowest_load = 1;      // mean over draws of the slowest shard over a balanced shard
  double max_slowest_load = 1;       // the largest of those
  double dropped_fraction = 0;       // routed copies dropped by the capacity factor
};

// Draws the routing of `micro_batches` micro-batches through `moe_layers` MoE layers of group `g`.
// Preconditions: g.experts divisible by g.ep, positive sizes. Errors: the skew's.
Result<RoutingDraws> DrawRouting(const RoutingSkew& skew, const RoutingOptions& o, const ExpertGroup& g,
                                 int micro_batches, int moe_layers, uint64_t seed);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_EXPERT_ROUTING_H_
