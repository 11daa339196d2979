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
// read node), "belady" (Ginex: the provably optimal replacement — evict the cached node read
// farthest in the future, and do not admit a node read later than everything cached — over the
// accesses announced by Foresee; a node not announced counts as never read again). Ties of the
// static policies go to the lower id.
//
// The same caches serve any id space: CacheContext::universe > 0 replaces the node count (the page
// cache of a memory-mapped file uses page numbers).
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
  int64_t capacity = 0;                 // entries; 0 <= capacity <= the id space
  std::span<const uint32_t> frequency;  // "frequency": reads per node in a pre-sampled epoch
  int64_t universe = 0;                 // ids are < universe; 0: the graph's nodes
  int64_t Ids() const { return universe > 0 ? universe : graph.num_nodes(); }
};

class FeatureCache {
 public:
  virtual ~FeatureCache() = default;
  // True when v's features are cached. On a miss a dynamic policy admits v (evicting when full).
  virtual bool Access(NodeId v) = 0;
  virtual std::string_view name() const = 0;
  // A policy with foresight ("belady") is told the next accesses before they are made: the caller
  // calls Foresee(upcoming) and then Access for exactly those ids, in that order (inspector-executor).
  virtual bool WantsForesight() const { return false; }
  virtual void Foresee(std::span<const NodeId> /*upcoming*/) {}
};

using CachePolicyRegistry = Registry<FeatureCache, const CacheContext&>;
void RegisterCachePolicies(CachePolicyRegistry& reg);
// True for the policies that need CacheContext::frequency.
bool NeedsFrequency(std::string_view policy);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_FEATURE_CACHE_H_
