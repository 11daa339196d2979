// The operator graph TAPAS searches (Shi et al., arXiv 2302.00247): the operators of a layer stack
// with their data-flow edges, and per operator the tensor-parallel strategies it admits. A tensor
// between operators is [tokens, features] in one of four layouts on the TP group: replicated, split
// by tokens, split by features, or a partial sum. A strategy says which layout each input must be in,
// which layout the output has, and which layout the input gradients come back in (a column-split
// GEMM's input gradient is a partial sum: Megatron's "f" all-reduce in the backward).
//
//   plan::ShardingGraph g = plan::BuildLayerStackGraph(spec, /*layers=*/4, {});
//   for (const plan::OpStrategy& s : plan::Strategies(g.ops[1])) ...   // replicated, column, row, tokens
//
// The graph knows nothing of Megatron's rules: model::Op::shard is not read; only kinds and shapes.
// Values; thread-safe as values.
#ifndef DLSIM_PLAN_SHARDING_SHARDING_GRAPH_H_
#define DLSIM_PLAN_SHARDING_SHARDING_GRAPH_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"

namespace dlsim::plan {

enum class Layout : uint8_t { kReplicated, kTokens, kFeatures, kPartial };
inline constexpr int kLayouts = 4;
std::string_view LayoutName(Layout l);  // "R", "S(tokens)", "S(features)", "P"

enum class ShardOpKind { kGemm, kAttention, kNorm, kElementwise, kAdd };

struct ShardOp {
  std::string name;
  ShardOpKind kind = ShardOpKind::kElementwise;
  model::Op op;             // shapes, bytes and flops per token (priced by ShardingCostModel)
  double width = 0;         // features of the output tensor per token
  std::vector<int> inputs;  // producing operator indices; -1 = the graph's input
};

struct ShardingGraph {
  std::vector<ShardOp> ops;  // in topological (execution) order; the last op's output is the graph's output
  double input_width = 0;
};

// `layers` transformer layers of `m` chained (each layer's output is the next one's input), the
// operators of model::BuildLayerOps with their edges: each operator reads its predecessor, and a
// residual add (an operator named "*_residual") also reads the residual stream (the layer input, or
// the previous residual add). Precondition: layers >= 1.
ShardingGraph BuildLayerStackGraph(const model::ModelSpec& m, int layers, const model::LayerOptions& o);

struct OpStrategy {
  std::string_view name;   // "replicated", "column", "row", "tokens", "heads"
  std::vector<Layout> in;  // per input
  Layout out = Layout::kReplicated;
  std::vector<Layout> in_grad;  // per input: the layout its gradient is produced in
};

// Gemm: replicated (R -> R), column (R -> S(features), gradient P), row (S(features) -> P), tokens
// (S(tokens) -> S(tokens), weight gradient all-reduced). Attention: replicated, heads (S(features)).
// Norm: replicated, tokens. Elementwise: R, S(tokens), S(features). Add: both inputs and the output
// in R, S(tokens) or S(features).
std::vector<OpStrategy> Strategies(const ShardOp& op);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SHARDING_SHARDING_GRAPH_H_
