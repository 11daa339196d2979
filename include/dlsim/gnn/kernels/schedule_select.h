// The uGrapher selector: the cheapest schedule of every loop of a graph operator on one graph,
// feature size and GPU, under the cost model of graph_kernel_cost.h; and the cost of a
// framework's static kernels for comparison.
//
//   auto best = gnn::SelectSchedules(prof, loops, families, gpu, {});   // Result<gnn::OpChoice>
//   auto base = gnn::CostStatic(prof, loops, dgl_policy, gpu, {});      // Result<gnn::OpChoice>
//   double speedup = base->time_ns / best->time_ns;                     // >= 1 by construction
//
// Each loop is one kernel with its own schedule (edge-softmax's three loops may differ). The search
// is exact: candidates are visited in the order of LoopLowerBoundNs and the search stops once the
// bound reaches the best cost found, so the result equals the brute-force argmin of CostLoop over
// ScheduleSpace (ties go to the earlier candidate of the space). Since a static kernel's schedule is
// in the space, the choice is never slower than it under the model. Thread-safe.
#ifndef DLSIM_GNN_KERNELS_SCHEDULE_SELECT_H_
#define DLSIM_GNN_KERNELS_SCHEDULE_SELECT_H_

#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/kernels/graph_kernel_cost.h"

namespace dlsim::gnn {

struct OpChoice {
  double time_ns = 0;               // the loops' times together
  std::vector<Schedule> schedules;  // one per loop
  std::vector<LoopCost> loops;
  int evaluated = 0;   // CostLoop calls (the selector's work; brute force evaluates the whole space)
  int candidates = 0;  // schedules in the space, over the loops
};

// Errors: kInvalidArgument for no loop, loops of different widths, or CostLoop's errors.
Result<OpChoice> SelectSchedules(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                                 const ScheduleFamilyRegistry& families, const hw::GpuSpec& gpu,
                                 const KernelModelParams& p);
// Every candidate costed: the reference the selector is tested against.
Result<OpChoice> SelectByBruteForce(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                                    const ScheduleFamilyRegistry& families, const hw::GpuSpec& gpu,
                                    const KernelModelParams& p);
// The loops under a static kernel policy.
Result<OpChoice> CostStatic(const GraphProfile& g, const std::vector<GraphLoop>& loops,
                            const StaticKernelPolicy& policy, const hw::GpuSpec& gpu,
                            const KernelModelParams& p);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_SCHEDULE_SELECT_H_
