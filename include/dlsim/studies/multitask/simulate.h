// Entry point of the multitask module: contract a multi-task workload into MetaOps, estimate each
// one's scalability, schedule it by Spindle's wavefront and by the sequential (Megatron-LM /
// DeepSpeed) baseline, and price both steps (docs/multitask.md).
//
//   DLSIM_ASSIGN_OR_RETURN(multitask::MultitaskResult r, multitask::Simulate(options, catalogs));
//   r.speedup;  r.spindle().cost.step;  r.wavefront.schedule.waves;  r.baseline.cost.waves;
#ifndef DLSIM_STUDIES_MULTITASK_SIMULATE_H_
#define DLSIM_STUDIES_MULTITASK_SIMULATE_H_

#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/studies/multitask/options.h"
#include "dlsim/studies/multitask/step_cost.h"

namespace dlsim::multitask {

struct PlanResult {
  Schedule schedule;
  StepCost cost;
};

struct MultitaskResult {
  MetaGraph graph;
  std::vector<ScalingCurve> curves;  // per MetaOp, on 1..budget devices
  PlanResult wavefront;              // Spindle's wavefront schedule
  PlanResult baseline;               // sequential, every MetaOp on the whole budget
  // Spindle's planner keeps the cheaper plan of its space: the wavefront one, unless the sequential
  // plan (one MetaOp per wave is a wavefront plan too) is faster, or is the only one that fits.
  bool use_wavefront = true;
  const PlanResult& spindle() const { return use_wavefront ? wavefront : baseline; }
  double speedup = 0;            // baseline step / spindle() step
  double wavefront_speedup = 0;  // baseline step / wavefront step
  std::string gpu;               // canonical GPU name
};

// Errors: an invalid workload (kInvalidArgument), unknown GPU / node / network / compute model
// (kNotFound), a MetaOp that cannot run on the budget (kInfeasible).
Result<MultitaskResult> Simulate(const MultitaskOptions& o, const catalog::Catalogs& catalogs);

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_SIMULATE_H_
