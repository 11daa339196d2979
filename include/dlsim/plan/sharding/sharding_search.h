// TAPAS's strategy search, exact, by dynamic programming over the operator graph in topological
// order: the state is the layout of every live tensor (produced and still to be read), so any DAG is
// searched exactly; the work is O(ops x layouts^width x strategies), width being the most tensors
// live at once (2 in a transformer layer: the residual stream and the current tensor). Each step
// adds the operator's cost under a strategy and, per input edge, the forward resharding into the
// strategy's layout plus the backward resharding of the gradient back into the producer's layout.
// Ties go to the first state (lowest layouts) and strategy (Strategies() order).
//
//   plan::ShardingPlans all = plan::SearchSharding(graph, cost, plan::Layout::kReplicated);
//   const plan::ShardingPlan* best = plan::Best(all);
//
// Thread-safe for distinct arguments.
#ifndef DLSIM_PLAN_SHARDING_SHARDING_SEARCH_H_
#define DLSIM_PLAN_SHARDING_SHARDING_SEARCH_H_

#include <array>
#include <optional>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/plan/sharding/sharding_cost.h"
#include "dlsim/plan/sharding/sharding_graph.h"

namespace dlsim::plan {

struct ShardingPlan {
  std::vector<int> strategy;  // per operator: an index into Strategies(op)
  Duration cost;              // forward + backward of one micro-batch, communication included
  Layout input = Layout::kReplicated, output = Layout::kReplicated;
  int64_t states = 0;  // DP states expanded (the search's work)
};

// The best plan per output layout (index = Layout), for a graph input in layout `input` (nullopt:
// any of R, S(tokens), S(features), the best chosen; a block inside a graph may also enter as P). An entry is
// empty when no plan ends in that layout. Precondition: the graph is non-empty and topologically ordered.
using ShardingPlans = std::array<std::optional<ShardingPlan>, kLayouts>;
// The layouts a graph input may take when the caller leaves it free.
inline constexpr Layout kGraphInputLayouts[] = {Layout::kReplicated, Layout::kTokens, Layout::kFeatures};
ShardingPlans SearchSharding(const ShardingGraph& g, const ShardingCostModel& cost,
                             std::optional<Layout> input = std::nullopt);

// The cheapest of `plans` (ties: the lower output layout), or nullptr; points into `plans` (so not
// for a temporary).
const ShardingPlan* Best(const ShardingPlans& plans);
const ShardingPlan* Best(ShardingPlans&&) = delete;

// The cost of a given assignment (the same accounting as the search); nullopt when a layout
// conversion is impossible. Precondition: strategy.size() == ops.
std::optional<Duration> PlanCost(const ShardingGraph& g, const ShardingCostModel& cost,
                                 const std::vector<int>& strategy, Layout input);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SHARDING_SHARDING_SEARCH_H_
