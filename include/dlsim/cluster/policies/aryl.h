// Aryl (Li et al., "Lyra: Elastic Scheduling for Deep Learning Clusters", EuroSys'23; arXiv
// 2202.07896 as "Aryl"): capacity loaning from an inference cluster plus elastic scaling,
// registered as "aryl" (round_s rounds; `elastic`, `reclaim` keys of PolicyParams).
//
// Each round (and at once after every capacity change of the lendable pool, capacity.h):
//   1. running jobs keep their base demand (a rigid job its GPUs, an elastic job min_gpus) on
//      the GPU type they run on: Aryl does not preempt for queued jobs;
//   2. waiting jobs, in arrival order, get their base demand on the allowed type with the most
//      GPUs left while it fits (skipping those that do not: backfill);
//   3. the GPUs left on each type go to the elastic jobs there as extra workers by a
//      multiple-choice knapsack: job j picks k in 0..max_gpus - base, weight k, value its JCT
//      reduction W_j / r_j(base) - W_j / r_j(base + k) (W_j its remaining work, r_j its speed:
//      AllocationView::RateIf, which applies the job's scaling curve).
// Reclaim (ChooseReclaim): "least-cost" takes back, greedily one at a time, the lent node whose
// return preempts the fewest jobs (an elastic job that keeps min_gpus elsewhere shrinks and does
// not count; ties: fewer GPUs shrunk, fewer GPUs in use, lower node id), recounting after each
// pick (a job already preempted costs nothing more); "random" picks uniformly (the ablation).
// Thread-safe: the policy keeps no state.
#ifndef DLSIM_CLUSTER_POLICIES_ARYL_H_
#define DLSIM_CLUSTER_POLICIES_ARYL_H_

#include <map>
#include <memory>
#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// Multiple-choice knapsack with weights 0..K_j: values[j][k] is job j's value with k extra GPUs
// (values[j][0] may be anything, usually 0). Returns k_j per job maximising sum values[j][k_j]
// subject to sum k_j <= capacity; ties go to fewer GPUs for earlier jobs. Exact DP, O(J x C x K).
std::vector<int> SolveMultipleChoiceKnapsack(const std::vector<std::vector<double>>& values, int capacity);

// A job on lent nodes, as the reclaim rule sees it: the GPUs it holds and the fewest it runs on
// (its GPUs when rigid).
struct ReclaimJob {
  int held = 0;
  int min_gpus = 0;
  bool elastic = false;
};

// Aryl's greedy least-preemption-cost choice of k of the lent nodes (see the header comment).
std::vector<int> LeastCostReclaim(const std::vector<LentNode>& lent, const std::map<int, ReclaimJob>& jobs,
                                  int k);

// Its `policy:` keys (besides round_s, backfill): elastic (give elastic jobs extra workers by the
// multiple-choice knapsack; false: base demands only) and reclaim (which lent nodes to give back when
// the pool reclaims: "least-cost", fewest preempted jobs greedily, or "random", the ablation).
struct ArylParams {
  bool elastic = true;
  std::string reclaim = "least-cost";
  static std::vector<ParamSpec> Keys();
  static ArylParams From(const ParamSet& set);
};

std::unique_ptr<SchedulingPolicy> MakeArylPolicy(const PolicyParams& params);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_ARYL_H_
