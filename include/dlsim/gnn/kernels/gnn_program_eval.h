// A numeric evaluator of GNN programs on the CPU (double precision): the proof that a rewritten
// program computes what the original does.
//
//   gnn::Tensors in = gnn::RandomInputs(program, graph, /*seed=*/1);
//   auto y = gnn::Evaluate(program, graph, in);   // Result<gnn::Matrix>, n x width of the output
//
// Rows are vertices (or edges in CSC order: the in-edges of v are csc().offsets[v] ..
// offsets[v + 1]); matrices are row-major. The GCN inputs v1, v2 are derived from the graph's
// in-degrees. O(ops x (m + n) x width) plus the GEMMs. Pure; thread-safe.
#ifndef DLSIM_GNN_KERNELS_GNN_PROGRAM_EVAL_H_
#define DLSIM_GNN_KERNELS_GNN_PROGRAM_EVAL_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/kernels/gnn_program.h"

namespace dlsim::gnn {

struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> data;  // rows x cols, row-major
  double& at(int64_t r, int64_t c) { return data[r * cols + c]; }
  double at(int64_t r, int64_t c) const { return data[r * cols + c]; }
};

struct Tensors {
  Matrix features;             // n x in
  std::vector<Matrix> params;  // one per program parameter
};

// Features and parameters uniform in [-1, 1] from a seeded stream (parameters scaled by
// 1 / sqrt(rows) so values stay O(1)). Programs with the same parameter shapes get the same values.
Tensors RandomInputs(const Program& p, const Graph& g, uint64_t seed);

// Errors (kInvalidArgument): features or parameters whose shapes differ from the program's.
Result<Matrix> Evaluate(const Program& p, const Graph& g, const Tensors& in);

// max |a - b| / max(1, max |a|): 0 for equal matrices; infinity for different shapes.
double RelativeDifference(const Matrix& a, const Matrix& b);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_KERNELS_GNN_PROGRAM_EVAL_H_
