// The schedule search of RLHFuse's intra-stage fusion (FlexFusion's DualEgoSolver, reimplemented):
// simulated annealing over the per-node task orders of a FusedProblem, minimising makespan then
// peak memory (ScheduleCost::BetterThan), from a start schedule such as GreedySchedule().
//
//   rlhf::AnnealOptions o{.seed = 1, .iterations = 200000};
//   Result<rlhf::AnnealResult> r = rlhf::Anneal(problem, rlhf::GreedySchedule(problem), o);
//   r->best_cost.makespan;   // <= the start's makespan
//
// Each iteration applies one move (a random swap of two tasks of one node, a swap of two adjacent
// tasks, or moving one task to another position; the enabled moves are drawn with equal
// probability), evaluates it, and keeps it when it is better or, when worse by d time units, with
// probability exp(-d / T); T falls geometrically from initial_temperature to final_temperature
// over the iterations. Deterministic for a seed (core/rng.h). Thread-safe for distinct arguments.
#ifndef DLSIM_STUDIES_RLHF_PIPELINE_ANNEAL_H_
#define DLSIM_STUDIES_RLHF_PIPELINE_ANNEAL_H_

#include <cstdint>

#include "dlsim/core/result.h"
#include "dlsim/studies/rlhf/fused_pipeline.h"

namespace dlsim::rlhf {

struct AnnealOptions {
  uint64_t seed = 1;
  int64_t iterations = 200000;
  // FlexFusion starts at 10-20 time units and cools by 0.999995 per iteration down to 1e-12 (about
  // 6 million iterations per seed, 767 seeds); we fit the same start into `iterations` by cooling to
  // final_temperature, below which a worse move of one time unit is essentially never accepted.
  double initial_temperature = 10;
  double final_temperature = 0.05;
  bool swap = true;           // RANDOM_SWAP
  bool adjacent_swap = true;  // RANDOM_ADJACENT_SWAP
  bool move = true;           // RANDOM_MOVE
};

struct AnnealResult {
  Schedule best;
  ScheduleCost start_cost;
  ScheduleCost best_cost;
  int64_t iterations = 0;
  int64_t accepted = 0;
  int64_t invalid = 0;  // moves that deadlocked (rejected)
};

// Errors: an invalid problem (Validate), a start schedule that does not run, iterations < 0, no move
// enabled, temperatures not 0 < final <= initial. The result is never worse than the start.
Result<AnnealResult> Anneal(const FusedProblem& p, const Schedule& start, const AnnealOptions& o);

// List scheduling: repeatedly runs, among the tasks whose predecessors are done, the one that can
// start earliest (ties: backward first, then the lower pipeline index, then the lower node). With
// protect_critical, a task of another pipeline is only eligible when it ends before the earliest
// ready task of the pipeline with the longest critical path on its node could start (FlexFusion's
// greedy keeps the actor's path free this way). Always a valid schedule.
Schedule GreedySchedule(const FusedProblem& p, bool protect_critical = false);
// The better (ScheduleCost::BetterThan) of the two greedy schedules.
Schedule BestGreedySchedule(const FusedProblem& p);

}  // namespace dlsim::rlhf

#endif  // DLSIM_STUDIES_RLHF_PIPELINE_ANNEAL_H_
