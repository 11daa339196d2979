// The tensor-parallel strategy search as Alpa's intra-operator pass formulates it (Zheng et al.,
// OSDI'22, section 4.2; alpa/shard_parallel/auto_sharding.py, `_call_solver_serialized_args`): an
// integer linear program over the whole graph, the baseline TAPAS's subgraph folding is measured
// against. Per operator a one-hot vector s_v over its strategies (sum s_v = 1), priced by the
// operator's own cost; per data-flow edge (u, v) a one-hot vector e_uv over the pairs (producer
// layout, consumer strategy), priced by the edge's forward and backward resharding, with Alpa's
// constraints sum e_uv = 1, each row sum <= s_u[row] and each column sum <= s_v[col]. The graph
// input is one more node whose "strategies" are its allowed layouts, at no cost. Impossible
// reshardings get no e variable (Alpa prices them at 1e13). No memory constraint (as
// sharding_search.h). Solved by GLPK's branch and cut (core/linear_program.h), exactly: the optimum
// equals SearchSharding's; among equal-cost plans GLPK's pick may differ from the DP's.
//
//   Result<plan::IlpSearch> r = plan::SearchShardingIlp(graph, cost);
//   r->plan.cost;                      // == Best(SearchSharding(graph, cost))->cost
//   r->variables; r->rows;             // the program's size
//
// Thread-safe for distinct arguments.
#ifndef DLSIM_PLAN_SHARDING_SHARDING_ILP_H_
#define DLSIM_PLAN_SHARDING_SHARDING_ILP_H_

#include <optional>

#include "dlsim/core/result.h"
#include "dlsim/plan/sharding/sharding_search.h"

namespace dlsim::plan {

struct IlpSearch {
  ShardingPlan plan;  // strategy per operator, cost re-priced with PlanCost; states = 0
  int variables = 0, rows = 0;
};

// The ILP's optimum with the graph input in `input` (nullopt: any of R, S(tokens), S(features)).
// Errors: Infeasible when no assignment converts every edge; Internal when GLPK fails.
// Precondition: the graph is non-empty and topologically ordered.
Result<IlpSearch> SearchShardingIlp(const ShardingGraph& g, const ShardingCostModel& cost,
                                    std::optional<Layout> input = std::nullopt);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SHARDING_SHARDING_ILP_H_
