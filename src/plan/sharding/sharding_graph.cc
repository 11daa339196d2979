#include "dlsim/plan/sharding/sharding_graph.h"

namespace dlsim::plan {

std::string_view LayoutName(Layout l) {
  switch (l) {
    case Layout::kReplicated:
      return "R";
    case Layout::kTokens:
      return "S(tokens)";
    case Layout::kFeatures:
      return "S(features)";
    case Layout::kPartial:
      return "P";
  }
  return "?";
}

namespace {

bool IsResidual(const std::string& name) {
  return name.size() > 9 && name.compare(name.size() - 9, 9, "_residual") == 0;
}

ShardOpKind KindOf(const model::Op& op) {
  if (op.kind == model::OpKind::kGemm) return ShardOpKind::kGemm;
  if (op.kind == model::OpKind::kAttention) return ShardOpKind::kAttention;
  if (IsResidual(op.name)) return ShardOpKind::kAdd;
  return op.access == model::Access::kNormalization ? ShardOpKind::kNorm : ShardOpKind::kElementwise;
}

}  // namespace

ShardingGraph BuildLayerStackGraph(const model::ModelSpec& m, int layers, const model::LayerOptions& o) {
  const std::vector<model::Op> layer = model::BuildLayerOps(m, o);
  ShardingGraph g;
  g.input_width = m.hidden;
  int stream = -1;  // the residual stream: graph input, or the last residual add
  for (int l = 0; l < layers; ++l) {
    for (const model::Op& op : layer) {
      ShardOp s{op.name, KindOf(op), op, 0, {}};
      const int prev = g.ops.empty() ? -1 : static_cast<int>(g.ops.size()) - 1;
      const double in_width = prev < 0 ? g.input_width : g.ops[prev].width;
      s.inputs.push_back(prev);
      s.width = s.kind == ShardOpKind::kGemm        ? static_cast<double>(op.n)
                : s.kind == ShardOpKind::kAttention ? static_cast<double>(m.hidden)
                : op.name == "swiglu"               ? static_cast<double>(m.ffn_hidden)
                                                    : in_width;
      if (s.kind == ShardOpKind::kAdd) {
        s.inputs.push_back(stream);
        stream = static_cast<int>(g.ops.size());
      }
      g.ops.push_back(std::move(s));
    }
  }
  return g;
}

std::vector<OpStrategy> Strategies(const ShardOp& op) {
  using L = Layout;
  const L R = L::kReplicated, T = L::kTokens, F = L::kFeatures, P = L::kPartial;
  switch (op.kind) {
    case ShardOpKind::kGemm:
      return {{"replicated", {R}, R, {R}},
              {"column", {R}, F, {P}},
              {"row", {F}, P, {F}},
              {"tokens", {T}, T, {T}}};
    case ShardOpKind::kAttention:
      return {{"replicated", {R}, R, {R}}, {"heads", {F}, F, {F}}};
    case ShardOpKind::kNorm:
      return {{"replicated", {R}, R, {R}}, {"tokens", {T}, T, {T}}};
    case ShardOpKind::kElementwise:
      return {{"replicated", {R}, R, {R}}, {"tokens", {T}, T, {T}}, {"features", {F}, F, {F}}};
    case ShardOpKind::kAdd:
      return {
          {"replicated", {R, R}, R, {R, R}}, {"tokens", {T, T}, T, {T, T}}, {"features", {F, F}, F, {F, F}}};
  }
  return {};
}

}  // namespace dlsim::plan
