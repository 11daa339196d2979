// Gavel's max-min fairness (LAS) policy, heterogeneity-aware and -agnostic (Narayanan et al.,
// OSDI'20; re-implemented from stanford-futuredata/gavel scheduler/policies/max_min_fairness.py,
// policies/proportional.py and scheduler/scheduler.py's round mechanism; no code copied).
//
// The allocation: time fractions X[j][t] of job j on GPU type t from the LP
//   maximise min_j sum_t c[j][t] X[j][t]
//   s.t. sum_t X[j][t] <= 1 (per job), sum_j scale_j X[j][t] <= gpus_t (per type), X >= 0,
// with c[j][t] = throughput[j][t] x scale_j / (weight_j x equal_share_j): a job's throughput under
// X relative to its throughput under an equal share of every type, equal_share_j = sum_t
// throughput[j][t] x gpus_t / sum_t gpus_t (Gavel's ProportionalPolicy), divided by its priority
// weight. The agnostic policy solves the same LP with every throughput set to 1 (Gavel's
// "max_min_fairness" without "_perf"). Two dlsim choices, both documented in docs/cluster.md:
//   - a second LP keeps every job at the optimal minimum and maximises the sum of c X, so the
//     allocation is Pareto-efficient (a simplex vertex may otherwise leave capacity unallocated;
//     Gavel's interior-point solver lands inside the optimal face instead);
//   - the agnostic allocation spreads each job's total time over the types in proportion to
//     their GPUs (an optimum of the same LP; the symmetric one an interior-point solver returns).
//
// The round mechanism (each Round(), default from PolicyParams::round; Gavel uses 360 s): job j's
// priority on type t is X[j][t] / received[j][t], received being the seconds it ran on t since the
// last reset (seeded with half a round, as Gavel does). Per type, in type order (aware: the
// cluster's type order; agnostic: shuffled each round, seeded), jobs are visited by priority
// (then X, then arrival) and get `scale` GPUs of the type while they fit; a job gets one type per
// round, never a type where its throughput is 0. Jobs with X = 0 on a type fill what is left
// (work-conserving, as Gavel's). X is recomputed in every round whose set of active jobs changed;
// the received times reset when X is recomputed and `reset_interval` has passed since the last
// reset (Gavel's minimum_time_between_allocation_resets, 1920 s).
//
// State: the policy keeps the mechanism's history between rounds (mutable members): one instance
// per simulation (the registry creates one per run), not thread-safe; a round earlier than the
// last one (a new run) clears it.
#ifndef DLSIM_CLUSTER_POLICIES_GAVEL_H_
#define DLSIM_CLUSTER_POLICIES_GAVEL_H_

#include <memory>
#include <vector>

#include "dlsim/cluster/policy.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

// One round's LP input: per job (rows) and GPU type (columns).
struct MaxMinProblem {
  std::vector<std::vector<double>> throughput;  // work/s on `scale` GPUs of the type; 0: cannot run
  std::vector<int> scale;                       // GPUs each job uses (> 0)
  std::vector<double> weight;                   // priority weight (> 0); higher gets more
  std::vector<int64_t> gpus;                    // GPUs of each type
};

// X[j][t]. Errors: InvalidArgument for ragged or empty input, a non-positive scale or weight, or a
// job whose throughput is 0 on every type (named by its row); LP errors from LinearProgram.
Result<std::vector<std::vector<double>>> SolveMaxMinFairness(const MaxMinProblem& p,
                                                             bool heterogeneity_aware);

// The round mechanism for one round: (row, type) pairs, at most one per row, in packing order.
// `received` [j][t] > 0; `type_order` a permutation of the types.
std::vector<std::pair<int, int>> PackRound(const MaxMinProblem& p, const std::vector<std::vector<double>>& x,
                                           const std::vector<std::vector<double>>& received,
                                           const std::vector<int>& type_order);

struct GavelOptions {
  bool heterogeneity_aware = true;
  Duration round = Seconds(360);
  Duration reset_interval = Seconds(1920);
  uint64_t seed = 1;  // the agnostic policy's type shuffle
};
std::unique_ptr<SchedulingPolicy> MakeGavelPolicy(const GavelOptions& options);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_GAVEL_H_
