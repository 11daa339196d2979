// Graph partitioners for distributed sampling: node -> partition (graph-store server / machine).
//
//   gnn::PartitionerRegistry reg("partitioner");
//   gnn::RegisterPartitioners(reg);
//   auto p = reg.Create("bgl");
//   auto parts = (*p)->Partition(graph, train, {.parts = 4, .seed = 1});  // Result<vector<int32_t>>
//   gnn::PartitionStats s = gnn::EvaluatePartition(graph, *parts, 4, train);
//
// Builtins: "hash" (a seeded hash of the node id: DGL's random partition), "metis" (METIS k-way,
// minimising the edge cut with balanced node counts; libmetis) and "bgl" (BGL's partitioner:
// multi-source BFS from `blocks_per_part` x parts random roots grows small connected blocks, each
// capped at twice the mean edge count, which are assigned greedily in BFS order to the partition
// holding most of their neighbours, scaled by the room it has left in nodes, training nodes and
// edges; a block no partition neighbours goes to the one with most room). Every node gets exactly one
// partition in 0..parts-1.
//
// Deterministic given the seed. Partitioners are stateless; thread-safe.
#ifndef DLSIM_GNN_PARTITION_H_
#define DLSIM_GNN_PARTITION_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct PartitionOptions {
  int parts = 1;
  uint64_t seed = 1;
  int blocks_per_part = 64;  // bgl: BFS blocks per partition
  double slack = 0.05;       // bgl: a partition may exceed its even share by this fraction
};

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  // The partition of every node. Errors: kInvalidArgument for parts < 1 or more parts than nodes;
  // kInternal when METIS reports a failure.
  virtual Result<std::vector<int32_t>> Partition(const Graph& g, std::span<const NodeId> train,
                                                 const PartitionOptions& o) const = 0;
  virtual std::string_view name() const = 0;
};

using PartitionerRegistry = Registry<Partitioner>;
void RegisterPartitioners(PartitionerRegistry& reg);

struct PartitionStats {
  double edge_cut = 0;       // fraction of stored edges whose ends are in different partitions
  double node_balance = 1;   // largest partition's node count / the mean
  double train_balance = 1;  // the same for training nodes
};
PartitionStats EvaluatePartition(const Graph& g, std::span<const int32_t> part, int parts,
                                 std::span<const NodeId> train);

// Direct constructor of the METIS partitioner (metis_partitioner.cc).
std::unique_ptr<Partitioner> MakeMetisPartitioner();

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_PARTITION_H_
