// Algebraic rewrites of GNN programs (operator reordering and fusion) and the set of equivalent
// programs they reach.
//
//   gnn::RewriteRegistry rules("gnn-rewrite");
//   gnn::RegisterRewrites(rules);
//   std::vector<gnn::Program> forms = gnn::EquivalentForms(gnn::GcnLayer(602, 16), rules, 64);
//
// Each rule returns every program one application of it makes (one per site where it applies);
// each is exact in real arithmetic (tests/gnn/gnn_algebra_test.cc runs every form numerically):
//   reorder       A (X W) = (A X) W for a linear aggregation A (sum, mean, a fixed edge weight):
//                 aggregate-then-gemm <-> gemm-then-aggregate; and GIN's (a X + A X) W = a (X W) +
//                 A (X W). A max aggregation is not linear and never moves.
//   push-norm     the edge norm d_u^-1/2 d_v^-1/2 of a sum becomes a row scale before it and an
//                 epilogue after it: A_norm X = D^-1/2 A (D^-1/2 X).
//   fuse-epilogue a relu or row scale after an op with no other reader runs in that op's epilogue.
//   fuse-attention edge scores + edge softmax + the weighted aggregation become one attention op
//                 (SDDMM + SpMM fused: no edge tensor is written).
// Pure functions; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GNN_REWRITE_H_
#define DLSIM_GNN_KERNELS_GNN_REWRITE_H_

#include <memory>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/gnn/kernels/gnn_program.h"

namespace dlsim::gnn {

class RewriteRule {
 public:
  virtual ~RewriteRule() = default;
  virtual std::vector<Program> Apply(const Program& p) const = 0;
};
using RewriteRegistry = Registry<RewriteRule>;

// reorder, push-norm, fuse-epilogue, fuse-attention.
void RegisterRewrites(RewriteRegistry& reg);

// The program and everything the rules reach from it, breadth first, each distinct program (by
// Describe(p, true)) once, at most `limit` of them; the original first. Every form records its
// rules in `rewrites`.
std::vector<Program> EquivalentForms(const Program& p, const RewriteRegistry& rules, int limit);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GNN_REWRITE_H_
