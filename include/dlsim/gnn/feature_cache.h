// Node-feature caches: which nodes' features are served from a fast tier, replayed on the real
// access stream of the sampled mini-batches.
//
//   gnn::CachePolicyRegistry reg("cache-policy");
//   gnn::RegisterCachePolicies(reg);
//   auto cache = reg.Create("fifo", {.graph = g, .capacity = 100000});
//   bool hit = (*cache)->Access(v);   // a miss admits v (dynamic policies)
//
// Builtins: "none" (capacity ignored, every access misses), "degree" (PaGraph: a static cache of
// the `capacity` nodes of highest in-degree: the ones sampled most often as neighbours), "frequency"
// (static, the `capacity` nodes most often read in a pre-sampled epoch: GNNLab's pre-sampling),
// "fifo" (BGL's choice: O(1), evicts the oldest admitted node) and "lru" (evicts the least recently
// read node). Ties of the static policies go to the lower id.
//
// Memory: 4 bytes per graph node for the node -> slot map plus O(capacity). Not thread-safe.
#ifndef DLSIM_GNN_FEATURE_CACHE_H_
#define DLSIM_GNN_FEATURE_CACHE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "dlsim/core/registry.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct CacheContext {
  const Graph& graph;
  int64_t capacity = 0;                 // nodes; 0 <= capacity <= graph.num_nodes()
  std::span<const uint32_t> frequency;  // "frequency": reads per node in a pre-sampled epoch
};

class FeatureCache {
 public:
  virtual ~FeatureCache() = default;
  // True when v's features are cached. On a miss a dynamic policy admits v (evicting when full).
  virtual bool Access(NodeId v) = 0;
  virtual std::string_view name() const = 0;
};

using CachePolicyRegistry = Registry<FeatureCache, const CacheContext&>;
void RegisterCachePolicies(CachePolicyRegistry& reg);
// True for the policies that need CacheContext::frequency.
bool NeedsFrequency(std::string_view policy);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_FEATURE_CACHE_H_
