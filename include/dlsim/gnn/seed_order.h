// The order in which an epoch visits the training nodes, cut into mini-batches of seeds.
//
//   gnn::SeedOrderRegistry reg("seed-order");
//   gnn::RegisterSeedOrders(reg);
//   auto order = reg.Create("bfs", graph, {.sequences = 4});
//   std::vector<gnn::NodeId> seq = (*order)->EpochOrder(train_nodes, rng);
//
// Builtins: "shuffle" (a uniform permutation each epoch: DGL/PyG), "sequential" (ascending ids)
// and "bfs" (BGL's proximity-aware ordering: a BFS over the graph from random training roots,
// restarted at a random unvisited training node when it runs dry, lists the training nodes in
// visiting order; that sequence is cut into `sequences` parts and mini-batches are assembled
// round-robin from them, so consecutive batches share multi-hop neighbours while each batch
// still mixes several regions of the graph).
//
// Deterministic given the Rng. An order borrows the graph; one per thread.
#ifndef DLSIM_GNN_SEED_ORDER_H_
#define DLSIM_GNN_SEED_ORDER_H_

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/rng.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct SeedOrderOptions {
  int sequences = 4;      // bfs: parts assembled round-robin (>= 1)
  int batch_size = 1024;  // bfs: seeds per mini-batch, to interleave the parts by batch
};

class SeedOrder {
 public:
  virtual ~SeedOrder() = default;
  // A permutation of `train` (distinct node ids) for one epoch.
  virtual std::vector<NodeId> EpochOrder(std::span<const NodeId> train, Rng& rng) = 0;
  virtual std::string_view name() const = 0;
};

using SeedOrderRegistry = Registry<SeedOrder, const Graph&, const SeedOrderOptions&>;
void RegisterSeedOrders(SeedOrderRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_SEED_ORDER_H_
