// Graph500 R-MAT generator (Kronecker graph): 2^scale nodes, edge_factor * 2^scale edges.
//
//   auto edges = gnn::GenerateRmat({.scale = 22, .seed = 1});   // Result<gnn::EdgeList>
//   auto g = gnn::BuildGraph(*edges, {.undirected = true});
//
// Each edge descends `scale` levels of the adjacency matrix, choosing a quadrant with
// probabilities (a, b, c, d = 1 - a - b - c); Graph500 uses (0.57, 0.19, 0.19, 0.05) and edge
// factor 16. The quadrant draw uses 16 random bits per level (probabilities are quantised to
// 1/65536), four levels per 64-bit draw. Node labels are then permuted at random (as Graph500 does),
// so a node's id says nothing about its degree. Seeded and deterministic. Time O(m scale / 4)
// random draws; memory 8 bytes per edge. Thread-compatible (a pure function).
#ifndef DLSIM_GNN_RMAT_H_
#define DLSIM_GNN_RMAT_H_

#include <cstdint>

#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct RmatOptions {
  int scale = 16;        // log2 of the node count, 1..30
  int edge_factor = 16;  // edges per node, 1..1024
  double a = 0.57, b = 0.19, c = 0.19;
  uint64_t seed = 1;
  bool permute = true;  // shuffle node labels
};

// Errors (kInvalidArgument): scale outside 1..30, edge factor outside 1..1024, a probability outside
// [0, 1] or a + b + c > 1.
Result<EdgeList> GenerateRmat(const RmatOptions& options);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_RMAT_H_
