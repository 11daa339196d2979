// Neighbourhood samplers: the seed nodes of a mini-batch -> the sampled multi-hop subgraph.
//
//   gnn::SamplerRegistry reg("sampler");
//   gnn::RegisterSamplers(reg);
//   auto s = reg.Create("uniform", graph, {.fanouts = {25, 10}});   // GraphSAGE [25, 10]
//   gnn::MiniBatch mb;
//   (*s)->Sample(seeds, rng, mb);       // mb.frontiers[2] are the nodes whose features are read
//
// Builtins: "uniform" (GraphSAGE: up to fanout[h] distinct neighbours per node at hop h, all of
// them when the degree is smaller), "full" (every neighbour), "layer-wise" (LADIES-style: fanout[h]
// node draws per layer from the frontier's neighbour multiset, edges are those into the drawn
// nodes), "random-walk" (PinSAGE: walks from each node, its fanout[h] most-visited nodes are its
// neighbours) and "importance" (AliGraph: fanout[h] draws per node, a neighbour's weight is its
// in-degree + 1, duplicates merged). Hop h samples from the out-neighbours of frontiers[h].
//
// Deterministic: the result depends only on the graph, the options, the seeds and the Rng state.
// A sampler borrows the graph (which must outlive it) and owns O(num_nodes) scratch; one sampler
// per thread.
#ifndef DLSIM_GNN_SAMPLER_H_
#define DLSIM_GNN_SAMPLER_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/rng.h"
#include "dlsim/gnn/graph.h"

namespace dlsim::gnn {

struct SamplerOptions {
  std::vector<int> fanouts = {25, 10};  // per hop, nearest the seeds first; > 0
  int walks = 16;                       // random-walk: walks per node
  int walk_length = 2;                  // random-walk: steps per walk
  bool record_edges = false;            // keep the sampled (dst, src) pairs (tests, small graphs)
};

// Error (kInvalidArgument) for no hop, a fanout < 1 ("fanouts[1] is 0; a fanout must be >= 1"), or
// walks / walk_length < 1.
Status CheckSamplerOptions(const SamplerOptions& o);

// One sampled mini-batch. frontiers[0] are the seeds; frontiers[h + 1] are frontiers[h] followed by
// the new nodes sampled at hop h (each node once, DGL's block convention), so frontiers.back() is
// every node whose features the batch reads. edges[h] counts the sampled edges of hop h.
struct MiniBatch {
  std::vector<std::vector<NodeId>> frontiers;
  std::vector<int64_t> edges;
  std::vector<std::vector<std::pair<NodeId, NodeId>>> sampled;  // per hop, with record_edges
  int64_t TotalEdges() const;
  const std::vector<NodeId>& InputNodes() const { return frontiers.back(); }
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  // Replaces `out` with the subgraph sampled around `seeds` (distinct node ids of the graph).
  virtual void Sample(std::span<const NodeId> seeds, Rng& rng, MiniBatch& out) = 0;
  virtual std::string_view name() const = 0;
};

// Factories take the graph (borrowed) and options already checked by CheckSamplerOptions.
using SamplerRegistry = Registry<Sampler, const Graph&, const SamplerOptions&>;
void RegisterSamplers(SamplerRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_SAMPLER_H_
