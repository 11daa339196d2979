// MIG-serving's controller: moving a running deployment to a new one (after the demand changed)
// without letting any service drop below what it must serve, by exchange-and-compact.
//
//   auto t = serve::PlanMigTransition(problem, current, target, {});   // Result<MigTransition>
//   t->total;  t->steps;  t->peak_gpus;
//
// Both deployments are configurations of `problem` (the same services and partitions; its demands
// are the new ones). Every step keeps served_s >= floor_s = min(served by `from`_s, demand_s) for
// every service s:
//   1. keep: a target configuration identical to a running GPU's stays untouched;
//   2. exchange: reconfigure a running GPU into a pending target configuration when what the GPU
//      stops serving can be spared (only the instances that change are drained; the same partition
//      needs no repartitioning). Among the safe exchanges the cheapest, then the one losing the least
//      throughput, is taken first;
//   3. when no exchange is safe, a spare GPU (at most options.spare_gpus beyond max(|from|, |to|)
//      running at once) takes a pending target configuration first;
//   4. compact: the running GPUs left over are drained and released (safe: the target meets demand).
// Steps run one after another; their times add up: drain per changed instance set, repartition when
// the partition changes, and a service load per started instance (options). Deterministic.
#ifndef DLSIM_SERVE_MIG_MIG_TRANSITION_H_
#define DLSIM_SERVE_MIG_MIG_TRANSITION_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/serve/mig/mig_serving.h"

namespace dlsim::serve {

struct MigTransitionOptions {
  Duration drain = Seconds(2);        // stop the services of a GPU's changed instances
  Duration repartition = Seconds(6);  // destroy and create MIG instances on one GPU
  Duration load = Seconds(20);        // start one service on one instance (weights, warm-up)
  int spare_gpus = 1;                 // GPUs the controller may borrow beyond max(|from|, |to|)
};

struct MigTransitionStep {
  enum class Kind { kExchange, kAddGpu, kReleaseGpu };
  Kind kind = Kind::kExchange;
  int gpu = 0;  // index among the GPUs the controller has used (from's first, then added ones)
  GpuConfig before, after;
  Duration time;
  std::vector<double> served;  // per service, after the step
};

struct MigTransition {
  std::vector<MigTransitionStep> steps;
  Duration total;
  int kept = 0;               // GPUs left untouched
  int peak_gpus = 0;          // GPUs running at once, at most
  std::vector<double> floor;  // per service: min(served by from, demand)
};

// Errors: kInfeasible when no safe step exists within the spare GPUs (the message names the pending
// configuration and the spare count); kInvalidArgument when a configuration does not belong to `p`.
Result<MigTransition> PlanMigTransition(const MigServingProblem& p, const MigDeployment& from,
                                        const MigDeployment& to, const MigTransitionOptions& options);

std::string_view MigTransitionStepName(MigTransitionStep::Kind k);  // "exchange" | "add" | "release"

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_MIG_TRANSITION_H_
