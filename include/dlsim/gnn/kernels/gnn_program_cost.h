// The GPU time of a GNN program on a graph, and the cheapest of its equivalent forms.
//
//   auto c = gnn::CostProgram(program, profile, ctx);      // Result<gnn::ProgramCost>
//   auto best = gnn::ChooseForm(gnn::GcnLayer(602, 16), profile, ctx, rules, 64);
//
// Graph ops become graph loops (graph_op.h) priced by the kernel cost model, each with the
// schedule the uGrapher selector picks (or a static kernel policy's); edge softmax is its three
// loops, the fused attention op three loops that read the scores' inputs instead of an edge tensor.
// GEMMs go to the roofline ComputeModel; row scales, adds and relus not fused into an epilogue are
// memory-bound kernels (their bytes through ComputeModel::MemoryBound). Epilogues are free: they
// run on values already in registers. Thread-compatible (borrows its context).
#ifndef DLSIM_GNN_KERNELS_GNN_PROGRAM_COST_H_
#define DLSIM_GNN_KERNELS_GNN_PROGRAM_COST_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/gnn/kernels/gnn_program.h"
#include "dlsim/gnn/kernels/gnn_rewrite.h"
#include "dlsim/gnn/kernels/graph_kernel_cost.h"
#include "dlsim/gnn/kernels/graph_schedule.h"

namespace dlsim::gnn {

// What pricing needs; every pointer borrowed, not null except `kernels`.
struct ProgramCostContext {
  const hw::GpuSpec* gpu = nullptr;
  const cost::ComputeModel* compute = nullptr;
  const ScheduleFamilyRegistry* families = nullptr;
  const StaticKernelPolicy* kernels = nullptr;  // null: select each loop's schedule
  KernelModelParams params;
};

struct ProgramCost {
  double time_ns = 0;
  std::vector<std::string> ops;  // per op: "gemm 12.3 us", "aggregate-sum TE_G8_T16 40.1 us"
};

// Graph loops already priced for one graph and context: loop signature -> (ns, schedule names).
using LoopCostCache = std::map<std::string, std::pair<double, std::string>>;

// Errors: kInvalidArgument from the kernel cost model. `cache` (optional) must only ever see one
// graph and context; ChooseForm shares one over the forms, which repeat the same loops.
Result<ProgramCost> CostProgram(const Program& p, const GraphProfile& g, const ProgramCostContext& ctx,
                                LoopCostCache* cache = nullptr);

struct FormChoice {
  Program best;
  ProgramCost best_cost;
  ProgramCost original_cost;  // the form as written (EquivalentForms' first)
  int forms = 0;              // equivalent forms priced
};
Result<FormChoice> ChooseForm(const Program& p, const GraphProfile& g, const ProgramCostContext& ctx,
                              const RewriteRegistry& rules, int limit);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GNN_PROGRAM_COST_H_
