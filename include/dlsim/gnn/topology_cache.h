// Topology caches: which nodes' adjacency lists a machine holds in host memory when they would
// otherwise be read from somewhere slower — the local disk (CaliEX, Ginex: topology on NVMe) or
// another machine (AliGraph: a partition caches the out-neighbour lists of important remote nodes).
//
//   gnn::TopologyCacheRegistry reg("topology-cache");
//   gnn::RegisterTopologyCaches(reg);
//   auto c = reg.Create("importance", {.graph = g, .budget_bytes = 1 << 30, .tau = 0.5});
//   bool local = (*c)->Holds(v);
//
// A cache is a static set chosen once (adjacency lists do not change during training). A list
// costs ListBytes(v) = 4 x out-degree + 8 (its targets and its offset entry). Candidates are every
// node, or only the nodes another machine owns when `part` is given (a machine's own lists are local
// anyway). Selection: candidates by score, highest first (ties to the lower id), taken while they
// fit the budget (a list that does not fit is skipped, smaller ones after it may still be taken);
// a score below `tau` is never taken (tau 0: every candidate, zero scores last). budget_bytes < 0
// means no byte limit (tau alone decides).
//
// Builtins:
//   "none"        nothing is cached
//   "degree"      score = in-degree (how often sampling reaches the node)
//   "frequency"   score = adjacency reads in a pre-sampled epoch per byte of the list (CaliEX's
//                 hot adjacency lists: the reads saved per byte of memory)
//   "importance"  AliGraph's Imp^(k)(v) = D_in^(k)(v) / D_out^(k)(v), k = 1 or 2; the k-hop
//                 degrees count paths of length 1..k (an upper bound of distinct k-hop neighbours),
//                 so k = 2 is D_in^(2)(v) = in(v) + sum over in-neighbours u of in(u). On an
//                 undirected graph every Imp is 1: the policy degenerates to ties (lowest ids).
// Memory: one bit per node. Not thread-safe to build; Holds is const.
#ifndef DLSIM_GNN_TOPOLOGY_CACHE_H_
#define DLSIM_GNN_TOPOLOGY_CACHE_H_

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct TopologyCacheContext {
  const Graph& graph;
  double budget_bytes = 0;          // < 0: unlimited
  double tau = 0;                   // lowest score taken
  int hops = 1;                     // "importance": k in {1, 2}
  std::span<const uint32_t> reads;  // "frequency": adjacency reads per node in a pre-sampled epoch
  std::span<const int32_t> part;    // when not empty: only nodes with part[v] != machine are candidates
  int machine = 0;
};

// Bytes of v's adjacency list in a CSR file or in memory: 4 per target plus its 8-byte offset.
double ListBytes(const Graph& g, NodeId v);

class TopologyCache {
 public:
  virtual ~TopologyCache() = default;
  virtual bool Holds(NodeId v) const = 0;
  virtual double bytes() const = 0;   // memory the cached lists take
  virtual int64_t lists() const = 0;  // nodes whose list is cached
  virtual std::string_view name() const = 0;
};

using TopologyCacheRegistry = Registry<TopologyCache, const TopologyCacheContext&>;
void RegisterTopologyCaches(TopologyCacheRegistry& reg);
bool TopologyNeedsReads(std::string_view policy);  // true for "frequency"

// AliGraph's importance of every node (see above), k in {1, 2}; a node with no out-edge scores
// its in-degree count (nothing to cache costs nothing but the offset).
std::vector<double> Importance(const Graph& g, int hops);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_TOPOLOGY_CACHE_H_
