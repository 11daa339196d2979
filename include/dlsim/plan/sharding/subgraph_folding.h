// TAPAS's subgraph folding: find the repeated substructures of a ShardingGraph, search each unique
// one once, and fold the results back onto the whole graph.
//  - Blocks: the graph is cut after every operator whose output is the only live tensor (nothing
//    else crosses the cut); consecutive cuts delimit blocks. Two blocks are the same substructure
//    when their operators (kind, shapes, bytes and flops per token, widths, edges relative to the
//    block) are identical.
//  - Each unique block is searched exactly (sharding_search.h) once per entry layout, giving its
//    best plan for every (entry, exit) layout pair; a dynamic program over the chain of blocks picks
//    the pairs, and every block takes its unique block's plan for its pair.
// The result is the optimum of the unfolded search (the cuts carry one tensor, so the chain DP is
// exact); with ties, the lowest layouts are preferred in both searches.
//
//   plan::FoldedSearch r = plan::SearchFolded(graph, cost);
//   r.unique_blocks;   // 2 for a transformer stack: the attention and MLP halves of a layer
//   r.plan.strategy;   // per operator, as SearchSharding
//
// Thread-safe for distinct arguments.
#ifndef DLSIM_PLAN_SHARDING_SUBGRAPH_FOLDING_H_
#define DLSIM_PLAN_SHARDING_SUBGRAPH_FOLDING_H_

#include <optional>
#include <vector>

#include "dlsim/plan/sharding/sharding_search.h"

namespace dlsim::plan {

struct Block {
  int begin = 0, end = 0;  // operators [begin, end)
  int unique = 0;          // index of its substructure
};

// The blocks of `g` in order, with their substructure indices numbered by first appearance.
std::vector<Block> FindBlocks(const ShardingGraph& g);

struct FoldedSearch {
  std::optional<ShardingPlan> plan;  // empty when no plan exists
  int blocks = 0;
  int unique_blocks = 0;
  int64_t states = 0;  // DP states expanded inside the unique blocks
};

// The folded search with the graph input in `input` (nullopt: any of R, S(tokens), S(features)).
FoldedSearch SearchFolded(const ShardingGraph& g, const ShardingCostModel& cost,
                          std::optional<Layout> input = std::nullopt);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SHARDING_SUBGRAPH_FOLDING_H_
