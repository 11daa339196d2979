// Graphs of the GNN data pipeline: an edge list, its CSR (out-edges) and CSC (in-edges), degree
// statistics.
//
//   gnn::EdgeList edges{.num_nodes = 4, .src = {0, 1, 2}, .dst = {1, 2, 3}};
//   auto g = gnn::BuildGraph(edges, {.undirected = true});   // Result<gnn::Graph>
//   for (gnn::NodeId v : g->Neighbors(1)) ...                 // 0 and 2, ascending
//
// Node ids are dense 32-bit integers 0..num_nodes-1 (a Graph500 scale-30 graph still fits);
// edge offsets are 64-bit. Memory: CSR = 8 (n + 1) + 4 m bytes for m stored edges (an undirected
// edge is stored twice); a directed graph adds the same again for its CSC. A Graph is an immutable
// value once built; safe to share between threads for reading.
#ifndef DLSIM_GNN_GRAPH_H_
#define DLSIM_GNN_GRAPH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::gnn {

using NodeId = uint32_t;
// Largest node count a graph may have (ids stay below 2^31, so an id always fits an int32 too).
inline constexpr int64_t kMaxNodes = int64_t{1} << 31;

// Edges as read or generated, before any clean-up. src[i] -> dst[i]; src and dst have equal sizes.
struct EdgeList {
  int64_t num_nodes = 0;
  std::vector<NodeId> src;
  std::vector<NodeId> dst;
};

struct BuildOptions {
  bool undirected = true;       // store every edge in both directions
  bool drop_self_loops = true;  // v -> v edges are removed
  bool drop_duplicates = true;  // repeated (u, v) pairs are stored once
};

// Compressed sparse rows: the neighbours of v are targets[offsets[v] .. offsets[v + 1]),
// ascending.
struct Csr {
  std::vector<uint64_t> offsets;  // num_nodes + 1 entries
  std::vector<NodeId> targets;
};

class Graph {
 public:
  Graph() = default;
  Graph(Csr out, Csr in, bool undirected);

  int64_t num_nodes() const { return static_cast<int64_t>(out_.offsets.size()) - 1; }
  // Stored out-edges: twice the input edges of an undirected graph, after clean-up.
  int64_t num_edges() const { return static_cast<int64_t>(out_.targets.size()); }
  bool undirected() const { return undirected_; }
  // Out-neighbours (the nodes sampled from v), ascending. Precondition: v < num_nodes().
  std::span<const NodeId> Neighbors(NodeId v) const {
    return {out_.targets.data() + out_.offsets[v], out_.targets.data() + out_.offsets[v + 1]};
  }
  // In-neighbours; the same as Neighbors for an undirected graph.
  std::span<const NodeId> InNeighbors(NodeId v) const;
  int64_t Degree(NodeId v) const { return static_cast<int64_t>(out_.offsets[v + 1] - out_.offsets[v]); }
  int64_t InDegree(NodeId v) const { return static_cast<int64_t>(InNeighbors(v).size()); }
  const Csr& csr() const { return out_; }
  const Csr& csc() const { return undirected_ ? out_ : in_; }
  // Bytes held by the CSR and CSC arrays.
  double MemoryBytes() const;

 private:
  Csr out_;
  Csr in_;  // empty when undirected_
  bool undirected_ = true;
};

// Errors (kInvalidArgument): no nodes ("the graph is empty"), num_nodes above kMaxNodes, src and
// dst of different sizes, a node id >= num_nodes ("edge 12: node id 40 is out of range; the graph
// has 40 nodes"), no edge left after clean-up. Time O(n + m log d) for the duplicate check.
Result<Graph> BuildGraph(const EdgeList& edges, const BuildOptions& options);

// Out-degree statistics (nearest-rank percentiles, core/stats.h).
struct DegreeStats {
  int64_t min = 0, max = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
  int64_t isolated = 0;  // nodes with no out-edge
};
DegreeStats ComputeDegreeStats(const Graph& g);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_GRAPH_H_
