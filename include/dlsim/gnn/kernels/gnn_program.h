// GNN layers as operator graphs (programs) that algebraic rewrites transform (gnn_rewrite.h), a
// numeric evaluator runs (gnn_program_eval.h) and a cost model prices (gnn_program_cost.h).
//
//   gnn::Program p = gnn::GcnLayer(602, 16);   // relu((D^-1/2 A D^-1/2 X) W), as written
//   gnn::Describe(p);   // "v3 = aggregate-sum(v0 w v2); v4 = gemm(v3, W0); v5 = relu(v4)"
//
// Values are vertex tensors (n x width) or edge tensors (m x width, edges in CSC order). Every
// program starts with the same three inputs: v0 = the features X (n x in), v1 = D^-1/2 (n x 1, the
// inverse square root of the in-degree, 0 for an isolated vertex), v2 = the GCN edge norm
// d_u^-1/2 d_v^-1/2 (m x 1). Weight matrices are parameters (rows x cols). Ops are in a valid
// order (every input defined before use). Values; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GNN_PROGRAM_H_
#define DLSIM_GNN_KERNELS_GNN_PROGRAM_H_

#include <string>
#include <utility>
#include <vector>

#include "dlsim/gnn/kernels/graph_op.h"

namespace dlsim::gnn {

enum class ValueKind { kVertex, kEdge };
struct Value {
  ValueKind kind = ValueKind::kVertex;
  int width = 1;
};

enum class OpKind {
  kGemm,         // out[v] = in0[v] x W(param)
  kAggregate,    // out[v] = reduce over u -> v of (in1[e] x) in0[u]; in1 optional (edge weights, 1 or heads
                 // wide)
  kScaleRows,    // out[v] = in1[v] x in0[v] (in1 one wide)
  kAdd,          // out = alpha x in0 + in1
  kRelu,         // out = max(in0, 0)
  kEdgeScores,   // out[e = u -> v] = leaky_relu(in0[u] + in1[v]) (GAT's scores, heads wide)
  kEdgeSoftmax,  // out[e] = softmax of in0 over the in-edges of v, per head
  kAttention,    // fused: out[v] = sum over u -> v of softmax(leaky_relu(in1[u] + in2[v])) x in0[u], per head
};

struct Op {
  OpKind kind = OpKind::kGemm;
  int out = -1;
  std::vector<int> in;
  int param = -1;  // kGemm: the weight matrix
  DstReduce reduce = DstReduce::kSum;
  bool mean = false;  // kAggregate: divide by the in-degree
  double alpha = 1;   // kAdd
  // Epilogues fused into the op, applied in this order to its result: a row scale, then a relu.
  int scale = -1;  // a vertex value one wide, or -1
  bool relu = false;
};

struct Program {
  std::string layer;          // "gcn", "sage-mean", "gin", "gat"
  std::vector<Value> values;  // inputs first (kNumInputs of them)
  std::vector<Op> ops;
  std::vector<std::pair<int, int>> params;  // weight matrices: rows x cols
  int output = -1;
  std::vector<std::string> rewrites;  // the rules applied to get here, in order
};

inline constexpr int kNumInputs = 3;
inline constexpr int kFeatures = 0, kDegInvSqrt = 1, kEdgeNorm = 2;

// The layers as their papers write them (the original form of every rewrite).
Program GcnLayer(int in, int out);                  // relu(A_norm X W), aggregation first, edge-weighted
Program SageMeanLayer(int in, int out);             // relu(X W_self + mean(X) W_neigh)
Program GinLayer(int in, int out, double eps);      // relu(((1 + eps) X + sum(X)) W1) W2, W2 out x out
Program GatLayer(int in, int heads, int head_dim);  // Z = X W; scores from Z a_l, Z a_r; softmax; sum

// One line per op ("v5 = relu(v4)"); with `canonical`, values are renumbered in order of first
// definition so equal programs print equally.
std::string Describe(const Program& p, bool canonical = false);
// The ops reading value `v`.
int Consumers(const Program& p, int v);
// "gemm", "aggregate-sum", "aggregate-mean", "aggregate-max", "scale-rows", "add", "relu",
// "edge-scores", "edge-softmax", "attention".
const char* OpName(const Op& op);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GNN_PROGRAM_H_
