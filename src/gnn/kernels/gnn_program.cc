// The GNN layers as programs, and their printing (gnn_program.h).
#include "dlsim/gnn/kernels/gnn_program.h"

#include <fmt/format.h>

#include <map>

namespace dlsim::gnn {
namespace {

// A program under construction.
class Builder {
 public:
  explicit Builder(std::string layer, int in) {
    p_.layer = std::move(layer);
    p_.values = {{ValueKind::kVertex, in}, {ValueKind::kVertex, 1}, {ValueKind::kEdge, 1}};
  }
  int Param(int rows, int cols) {
    p_.params.emplace_back(rows, cols);
    return static_cast<int>(p_.params.size()) - 1;
  }
  int Emit(Op op, ValueKind kind, int width) {
    p_.values.push_back({kind, width});
    op.out = static_cast<int>(p_.values.size()) - 1;
    p_.ops.push_back(std::move(op));
    return p_.ops.back().out;
  }
  int Width(int v) const { return p_.values[v].width; }
  int Gemm(int x, int cols) {
    return Emit({.kind = OpKind::kGemm, .in = {x}, .param = Param(Width(x), cols)}, ValueKind::kVertex, cols);
  }
  int Relu(int x) { return Emit({.kind = OpKind::kRelu, .in = {x}}, ValueKind::kVertex, Width(x)); }
  Program Done(int output) {
    p_.output = output;
    return p_;
  }

 private:
  Program p_;
};

}  // namespace

Program GcnLayer(int in, int out) {
  Builder b("gcn", in);
  const int a = b.Emit({.kind = OpKind::kAggregate, .in = {kFeatures, kEdgeNorm}}, ValueKind::kVertex, in);
  return b.Done(b.Relu(b.Gemm(a, out)));
}

Program SageMeanLayer(int in, int out) {
  Builder b("sage-mean", in);
  const int self = b.Gemm(kFeatures, out);
  const int mean =
      b.Emit({.kind = OpKind::kAggregate, .in = {kFeatures}, .mean = true}, ValueKind::kVertex, in);
  const int neigh = b.Gemm(mean, out);
  const int sum = b.Emit({.kind = OpKind::kAdd, .in = {self, neigh}}, ValueKind::kVertex, out);
  return b.Done(b.Relu(sum));
}

Program GinLayer(int in, int out, double eps) {
  Builder b("gin", in);
  const int agg = b.Emit({.kind = OpKind::kAggregate, .in = {kFeatures}}, ValueKind::kVertex, in);
  const int sum =
      b.Emit({.kind = OpKind::kAdd, .in = {kFeatures, agg}, .alpha = 1 + eps}, ValueKind::kVertex, in);
  const int hidden = b.Relu(b.Gemm(sum, out));
  return b.Done(b.Gemm(hidden, out));
}

Program GatLayer(int in, int heads, int head_dim) {
  Builder b("gat", in);
  const int z = b.Gemm(kFeatures, heads * head_dim);
  const int el = b.Gemm(z, heads);
  const int er = b.Gemm(z, heads);
  const int score = b.Emit({.kind = OpKind::kEdgeScores, .in = {el, er}}, ValueKind::kEdge, heads);
  const int alpha = b.Emit({.kind = OpKind::kEdgeSoftmax, .in = {score}}, ValueKind::kEdge, heads);
  return b.Done(b.Emit({.kind = OpKind::kAggregate, .in = {z, alpha}}, ValueKind::kVertex, heads * head_dim));
}

const char* OpName(const Op& op) {
  switch (op.kind) {
    case OpKind::kGemm:
      return "gemm";
    case OpKind::kAggregate:
      return op.mean ? "aggregate-mean" : op.reduce == DstReduce::kMax ? "aggregate-max" : "aggregate-sum";
    case OpKind::kScaleRows:
      return "scale-rows";
    case OpKind::kAdd:
      return "add";
    case OpKind::kRelu:
      return "relu";
    case OpKind::kEdgeScores:
      return "edge-scores";
    case OpKind::kEdgeSoftmax:
      return "edge-softmax";
    case OpKind::kAttention:
      return "attention";
  }
  return "?";
}

int Consumers(const Program& p, int v) {
  int n = v == p.output ? 1 : 0;
  for (const Op& op : p.ops) {
    for (int i : op.in) n += i == v ? 1 : 0;
    n += op.scale == v ? 1 : 0;
  }
  return n;
}

std::string Describe(const Program& p, bool canonical) {
  std::map<int, int> id;
  for (int v = 0; v < kNumInputs; ++v) id[v] = v;
  const auto name = [&](int v) { return fmt::format("v{}", canonical ? id.at(v) : v); };
  std::string s;
  for (const Op& op : p.ops) {
    std::string args;
    for (size_t i = 0; i < op.in.size(); ++i) {
      args += (i == 0 ? "" : op.kind == OpKind::kAggregate ? " w " : ", ") + name(op.in[i]);
    }
    if (op.param >= 0)
      args += fmt::format(", W{}[{}x{}]", op.param, p.params[op.param].first, p.params[op.param].second);
    if (op.kind == OpKind::kAdd && op.alpha != 1) args = fmt::format("{} x ", op.alpha) + args;
    id[op.out] = static_cast<int>(id.size());
    std::string epi = op.scale >= 0 ? " *rows " + name(op.scale) : "";
    if (op.relu) epi += " +relu";
    s += fmt::format("{}{} = {}({}){}", s.empty() ? "" : "; ", name(op.out), OpName(op), args, epi);
  }
  return s;
}

}  // namespace dlsim::gnn
