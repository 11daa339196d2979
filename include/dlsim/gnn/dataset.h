// What a GNN trains on besides the topology: node features described by dimension and data type
// (their values are never needed: only their bytes move), and the train/val/test node split.
//
//   gnn::FeatureSpec f{.dim = 128, .dtype = hw::DType::kFp32};   // 512 bytes per node
//   auto split = gnn::SplitNodes(g.num_nodes(), {.train = 0.1, .seed = 1});
//
// Pure functions and values; thread-safe.
#ifndef DLSIM_GNN_DATASET_H_
#define DLSIM_GNN_DATASET_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::gnn {

struct FeatureSpec {
  int dim = 128;
  hw::DType dtype = hw::DType::kFp32;
  // Bytes of one node's feature vector.
  Bytes PerNode() const { return Bytes(dim * hw::DTypeBytes(dtype)); }
};

struct SplitOptions {
  double train = 0.1, val = 0.05, test = 0.05;  // fractions of the nodes
  uint64_t seed = 1;
};

// Disjoint node sets, each ascending.
struct NodeSplit {
  std::vector<NodeId> train, val, test;
};

// A seeded random permutation of the nodes cut into round(fraction * n) train, then val, then test
// nodes. Errors (kInvalidArgument): a negative fraction, fractions summing to more than 1, no
// training node.
Result<NodeSplit> SplitNodes(int64_t num_nodes, const SplitOptions& options);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_DATASET_H_
