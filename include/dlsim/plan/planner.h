// The planner: enumerate and prune the search space (candidate.h), simulate the
// survivors on a back-end (backend.h), rank them by the objective, and build
// the Pareto fronts.
//
//   auto backend = plan::MakeThreadBackend(0);
//   auto result = plan::RunPlanner(base, options, make_context, *backend,
//   /*progress=*/{}); if (result.ok() && result->Best()) std::cout <<
//   plan::DescribeCandidate(result->Best()->candidate);
//
// Deterministic: the ranking, fronts and counts depend only on the inputs, not
// on the number of threads or processes (ties are broken by enumeration order).
// Only elapsed_s and backend vary.
#ifndef DLSIM_PLAN_PLANNER_H_
#define DLSIM_PLAN_PLANNER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/plan/backend.h"
#include "dlsim/plan/candidate.h"
#include "dlsim/plan/evaluation.h"
#include "dlsim/plan/search_space.h"
#include "dlsim/train/context_builder.h"

namespace dlsim::plan {

struct EvaluatedCandidate {
  size_t id = 0;  // position among the enumerated candidates
  Candidate candidate;
  Evaluation eval;
  double objective = 0;  // in the objective's unit: s, tokens/s/GPU or cost per 1M tokens
  double score = 0;      // lower is better; +infinity when infeasible
};

// The ranking order: lower score first; on a tie the layout with fewer GPUs (the same speed for
// less hardware), then the one enumerated first (id), so the order is total and deterministic.
bool RanksBefore(const EvaluatedCandidate& a, const EvaluatedCandidate& b);

struct PlanResult {
  Objective objective = Objective::kStepTime;
  uint64_t space_size = 0;
  std::vector<std::pair<std::string, uint64_t>> pruned;  // reason -> count (zeros included)
  uint64_t pruned_total = 0;
  std::vector<EvaluatedCandidate> evaluated;  // enumeration order
  std::vector<size_t> ranking;                // feasible entries of `evaluated`, best first
  std::vector<size_t> pareto_gpus;            // step time vs GPU count, fewest GPUs first
  std::vector<size_t> pareto_memory;          // step time vs peak memory, least memory first
  std::optional<size_t> baseline;             // the scenario's own layout in `evaluated`
  std::optional<size_t> baseline_rank;        // its 1-based rank when feasible
  double elapsed_s = 0;
  std::string backend;
  // The interval of a 1 s prediction in the scenario's regime (train/prediction_interval.h; every
  // candidate shares the scenario's stack, model and GPU, so one ratio applies to all); set by the caller.
  std::optional<train::StepInterval> unit_interval;
  // The same for a peak memory of 1 GiB (the `memory` regime: one ratio for every layout); set by the caller.
  std::optional<train::MemoryInterval> unit_memory_interval;
  double usable_memory_bytes = 0;  // what feasibility was judged against: capacity less the headroom

  const EvaluatedCandidate* Best() const { return ranking.empty() ? nullptr : &evaluated[ranking[0]]; }
  // Whether `c`'s step-time interval overlaps the best's (a tie: the model cannot tell them apart).
  bool TiesBest(const EvaluatedCandidate& c) const {
    if (!unit_interval || Best() == nullptr) return false;
    return c.eval.step_time_s * unit_interval->low_s <= Best()->eval.step_time_s * unit_interval->high_s;
  }
  // Whether `c` fits at its predicted peak but not at its interval's upper end: a layout that may run out
  // of memory on the real stack (the memory interval's spread is that of real runs' logged peaks).
  bool MemoryAtRisk(const EvaluatedCandidate& c) const {
    if (!unit_memory_interval || !c.eval.feasible) return false;
    return c.eval.peak_memory_bytes * unit_memory_interval->high_gib > usable_memory_bytes;
  }
  size_t Feasible() const { return ranking.size(); }
};

// Makes one simulation context per worker (contexts are never shared between
// threads).
using ContextFactory = std::function<Result<std::unique_ptr<train::OwnedStepContext>>()>;

// Runs the search. Errors: the context factory's. The scenario's own layout is
// always simulated when it survives pruning, so its rank can be reported.
Result<PlanResult> RunPlanner(const train::TrainOptions& base, const PlanOptions& options,
                              const ContextFactory& make_context, Backend& backend,
                              const ProgressFn& progress);

// Simulates one candidate; infeasible also when the peak memory exceeds
// `usable`.
Evaluation SimulateCandidate(const train::TrainOptions& base, const Candidate& c,
                             const train::StepContext& ctx, const train::PipelineScheduleRegistry& schedules,
                             Bytes usable);

// Objective value and score of an evaluation (see search_space.h for the
// definitions).
std::pair<double, double> ScoreOf(const train::TrainOptions& base, const Constraints& constraints,
                                  const Candidate& c, const Evaluation& e);

// Why `c` ranks below `best`, in words: "+3.2%: pipeline bubble +0.12 s; pp
// 8->16".
std::string WhyDifferent(const EvaluatedCandidate& best, const EvaluatedCandidate& c, Objective objective);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_PLANNER_H_
