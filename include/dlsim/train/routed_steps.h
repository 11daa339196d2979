// The training step under data-aware MoE routing (TrainOptions::routing): each micro-batch's MoE layers
// are priced at the routed copies their slowest expert shard computes (train/expert_routing.h), so the
// pipeline runs micro-batches of different cost.
//
// One expert-parallel group is drawn: it spans data-parallel replicas, and the per-layer all-to-all
// holds every replica of the group to its slowest shard, so the replicas run identical programs and
// one is simulated. The other edp - 1 groups are statistically identical and not drawn.
//
// Thread-compatible; deterministic for TrainOptions::seed.
#ifndef DLSIM_TRAIN_ROUTED_STEPS_H_
#define DLSIM_TRAIN_ROUTED_STEPS_H_

#include <string>

#include "dlsim/core/result.h"
#include "dlsim/report/sink.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

// What the routing did, for the report (loads are over a balanced shard's routed copies).
struct RoutingSummary {
  std::string skew;
  int ep = 1, experts_per_shard = 0;
  int draws = 0;                 // micro-batches x MoE layers
  int hottest_shard = 0;         // expert-parallel rank with the most routed copies over the step
  int hottest_first_expert = 0;  // its experts are [first, first + experts_per_shard)
  double hottest_load = 1, mean_slowest_load = 1, max_slowest_load = 1;
  double dropped_fraction = 0;
};

struct RoutedStep {
  StepTimeline timeline;
  RoutingSummary summary;
};

// Simulates the step of `base` (the uniform program) with routed MoE costs. Errors (kInvalidArgument):
// an unknown skew, a histogram that does not fit, a dense model.
Result<RoutedStep> SimulateRoutedStep(const TrainOptions& o, const ParallelPlan& plan,
                                      const ChunkCostModel& costs, StepProgram base, report::Sink* sink);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_ROUTED_STEPS_H_
