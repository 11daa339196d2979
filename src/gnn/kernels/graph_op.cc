// The builtin graph operators (graph_op.h): each a short list of graph loops.
#include "dlsim/gnn/kernels/graph_op.h"

#include <functional>
#include <utility>

namespace dlsim::gnn {
namespace {

class LoopOperator final : public GraphOperator {
 public:
  explicit LoopOperator(std::function<std::vector<GraphLoop>(int)> make) : make_(std::move(make)) {}
  std::vector<GraphLoop> Loops(int features) const override { return make_(features); }

 private:
  std::function<std::vector<GraphLoop>(int)> make_;
};

GraphLoop Gather(std::string name, int f, DstReduce reduce) {
  return {.name = std::move(name), .width = f, .read_src = true, .to_dst = reduce};
}

std::vector<GraphLoop> EdgeSoftmax(int heads) {
  GraphLoop max{.name = "score-max", .width = heads, .read_edge = heads, .to_dst = DstReduce::kMax};
  GraphLoop sum{.name = "exp-sum",
                .width = heads,
                .read_dst = true,
                .read_edge = heads,
                .write_edge = heads,
                .to_dst = DstReduce::kSum};
  GraphLoop div{.name = "divide", .width = heads, .read_dst = true, .read_edge = heads, .write_edge = heads};
  return {max, sum, div};
}

void Add(GraphOpRegistry& reg, const char* name, const char* what,
         std::function<std::vector<GraphLoop>(int)> f) {
  reg.RegisterBuiltin(name, what, [f] { return std::make_unique<LoopOperator>(f); });
}

}  // namespace

void RegisterGraphOps(GraphOpRegistry& reg) {
  Add(reg, "copy-u", "message creation: copy the source row to the edge (u_copy_e)", [](int f) {
    return std::vector<GraphLoop>{{.name = "copy", .width = f, .read_src = true, .write_edge = f}};
  });
  Add(reg, "u-mul-v", "edge-wise product of the source and destination rows (u_mul_v)", [](int f) {
    return std::vector<GraphLoop>{
        {.name = "mul", .width = f, .read_src = true, .read_dst = true, .write_edge = f}};
  });
  Add(reg, "sddmm", "SDDMM: dot product of the source and destination rows per edge (u_dot_v)", [](int f) {
    return std::vector<GraphLoop>{
        {.name = "dot", .width = f, .read_src = true, .read_dst = true, .write_edge = 1, .dot = true}};
  });
  Add(reg, "spmm-sum", "SpMM aggregation: sum of the source rows into the destination (copy_u, sum)",
      [](int f) { return std::vector<GraphLoop>{Gather("gather-sum", f, DstReduce::kSum)}; });
  Add(reg, "spmm-mean", "SpMM aggregation: mean of the source rows (GraphSAGE-mean)", [](int f) {
    GraphLoop l = Gather("gather-mean", f, DstReduce::kSum);
    l.mean = true;
    return std::vector<GraphLoop>{l};
  });
  Add(reg, "spmm-max", "SpMM aggregation: element-wise max of the source rows (GraphSAGE-pool)",
      [](int f) { return std::vector<GraphLoop>{Gather("gather-max", f, DstReduce::kMax)}; });
  Add(reg, "spmm-weighted", "SpMM with an edge weight: sum of w_e x source row (u_mul_e, sum; GCN)",
      [](int f) {
        GraphLoop l = Gather("gather-weighted", f, DstReduce::kSum);
        l.read_edge = 1;
        return std::vector<GraphLoop>{l};
      });
  Add(reg, "edge-softmax", "softmax of the edge scores over each destination's in-edges (GAT; width = heads)",
      EdgeSoftmax);
}

}  // namespace dlsim::gnn
