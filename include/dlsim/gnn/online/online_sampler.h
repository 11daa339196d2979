// Online GNN inference on a dynamic graph (Helios, PPoPP 2025): the edge stream, the per-vertex
// bounded samples that event-driven pre-sampling keeps, and their registry.
//
//   auto stream = gnn::ReplayEdges(edges, /*rate_per_s=*/1e6, /*seed=*/1);  // time-ordered
//   gnn::SampleStoreRegistry reg("online-sampler");
//   gnn::RegisterSampleStores(reg);
//   auto store = reg.Create("top-k", num_nodes, /*k=*/10);   // Result<unique_ptr<SampleStore>>
//   (*store)->Insert(v, u, rng);                             // u arrived as a neighbour of v
//
// A store keeps at most k neighbours per vertex; Insert says whether v's sample changed and which
// neighbour it evicted. Memory: 4 bytes x k x vertices plus a count per vertex. Not thread-safe.
#ifndef DLSIM_GNN_ONLINE_ONLINE_SAMPLER_H_
#define DLSIM_GNN_ONLINE_ONLINE_SAMPLER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/rng.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

// One undirected edge arriving at t_ns.
struct StreamEdge {
  int64_t t_ns = 0;
  NodeId u = 0, v = 0;
};

// The edges (self-loops and repeated pairs dropped, each undirected pair once) in a seeded random
// order with Poisson arrivals at `rate_per_s` (> 0), starting at 0. Deterministic.
std::vector<StreamEdge> ReplayEdges(const EdgeList& edges, double rate_per_s, uint64_t seed);

struct SampleChange {
  bool changed = false;
  std::optional<NodeId> evicted;
};

class SampleStore {
 public:
  virtual ~SampleStore() = default;
  // u becomes a neighbour of v. Precondition: u, v < the store's vertex count.
  virtual SampleChange Insert(NodeId v, NodeId u, Rng& rng) = 0;
  // v's sample; top-k: most recent first.
  virtual std::span<const NodeId> Sample(NodeId v) const = 0;
  virtual double Bytes() const = 0;
};
using SampleStoreRegistry = Registry<SampleStore, int64_t /*nodes*/, int /*k*/>;

// top-k (the k most recent neighbours, Helios' default), reservoir (k uniform over the stream:
// Vitter's algorithm R), all (every neighbour: k is ignored; for checks against on-demand sampling).
void RegisterSampleStores(SampleStoreRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_ONLINE_ONLINE_SAMPLER_H_
