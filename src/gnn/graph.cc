#include "dlsim/gnn/graph.h"

#include <algorithm>
#include <string>

#include "dlsim/core/stats.h"

namespace dlsim::gnn {
namespace {

// Sorts every row, drops duplicates (when asked) and compacts the arrays.
void SortRows(Csr& csr, bool drop_duplicates) {
  const size_t n = csr.offsets.size() - 1;
  uint64_t write = 0;
  uint64_t begin = 0;
  for (size_t v = 0; v < n; ++v) {
    const uint64_t end = csr.offsets[v + 1];
    auto first = csr.targets.begin() + static_cast<int64_t>(begin);
    auto last = csr.targets.begin() + static_cast<int64_t>(end);
    std::sort(first, last);
    if (drop_duplicates) last = std::unique(first, last);
    const auto kept = static_cast<uint64_t>(last - first);
    std::copy(first, last, csr.targets.begin() + static_cast<int64_t>(write));
    csr.offsets[v] = write;
    write += kept;
    begin = end;
  }
  csr.offsets[n] = write;
  csr.targets.resize(write);
  csr.targets.shrink_to_fit();
}

// Counting sort of the (from -> to) pairs by `from`; with `both`, each pair is added both ways.
Csr BuildCsr(int64_t n, const std::vector<NodeId>& from, const std::vector<NodeId>& to, bool both,
             const BuildOptions& o) {
  Csr csr;
  csr.offsets.assign(static_cast<size_t>(n) + 1, 0);
  auto keep = [&](size_t i) { return !(o.drop_self_loops && from[i] == to[i]); };
  for (size_t i = 0; i < from.size(); ++i) {
    if (!keep(i)) continue;
    ++csr.offsets[from[i] + 1];
    if (both) ++csr.offsets[to[i] + 1];
  }
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) csr.offsets[v + 1] += csr.offsets[v];
  csr.targets.resize(csr.offsets.back());
  std::vector<uint64_t> cursor(csr.offsets.begin(), csr.offsets.end() - 1);
  for (size_t i = 0; i < from.size(); ++i) {
    if (!keep(i)) continue;
    csr.targets[cursor[from[i]]++] = to[i];
    if (both) csr.targets[cursor[to[i]]++] = from[i];
  }
  SortRows(csr, o.drop_duplicates);
  return csr;
}

Status CheckEdges(const EdgeList& e) {
  if (e.num_nodes <= 0) return Error::InvalidArgument("the graph is empty (no nodes)");
  if (e.num_nodes > kMaxNodes)
    return Error::InvalidArgument("the graph has " + std::to_string(e.num_nodes) + " nodes; at most " +
                                  std::to_string(kMaxNodes) + " are supported");
  if (e.src.size() != e.dst.size())
    return Error::InvalidArgument("edge list has " + std::to_string(e.src.size()) + " sources but " +
                                  std::to_string(e.dst.size()) + " targets");
  if (e.src.empty()) return Error::InvalidArgument("the graph is empty (no edges)");
  for (size_t i = 0; i < e.src.size(); ++i) {
    const NodeId bad = std::max(e.src[i], e.dst[i]);
    if (bad >= e.num_nodes)
      return Error::InvalidArgument("edge " + std::to_string(i) + ": node id " + std::to_string(bad) +
                                    " is out of range; the graph has " + std::to_string(e.num_nodes) +
                                    " nodes");
  }
  return Status::Ok();
}

}  // namespace

Graph::Graph(Csr out, Csr in, bool undirected)
    : out_(std::move(out)), in_(std::move(in)), undirected_(undirected) {}

std::span<const NodeId> Graph::InNeighbors(NodeId v) const {
  const Csr& c = csc();
  return {c.targets.data() + c.offsets[v], c.targets.data() + c.offsets[v + 1]};
}

double Graph::MemoryBytes() const {
  auto bytes = [](const Csr& c) {
    return static_cast<double>(c.offsets.size() * sizeof(uint64_t) + c.targets.size() * sizeof(NodeId));
  };
  return bytes(out_) + (undirected_ ? 0.0 : bytes(in_));
}

Result<Graph> BuildGraph(const EdgeList& edges, const BuildOptions& options) {
  DLSIM_RETURN_IF_ERROR(CheckEdges(edges));
  Csr out = BuildCsr(edges.num_nodes, edges.src, edges.dst, options.undirected, options);
  if (out.targets.empty())
    return Error::InvalidArgument("the graph is empty: no edge is left once self-loops are dropped");
  Csr in;
  if (!options.undirected) in = BuildCsr(edges.num_nodes, edges.dst, edges.src, false, options);
  return Graph(std::move(out), std::move(in), options.undirected);
}

DegreeStats ComputeDegreeStats(const Graph& g) {
  DegreeStats s;
  std::vector<double> degrees(static_cast<size_t>(g.num_nodes()));
  s.min = g.num_edges();
  for (int64_t v = 0; v < g.num_nodes(); ++v) {
    const int64_t d = g.Degree(static_cast<NodeId>(v));
    degrees[static_cast<size_t>(v)] = static_cast<double>(d);
    s.min = std::min(s.min, d);
    s.max = std::max(s.max, d);
    if (d == 0) ++s.isolated;
  }
  const Percentiles p = Summarize(degrees);
  s.mean = p.mean;
  s.p50 = p.p50;
  s.p90 = p.p90;
  s.p99 = p.p99;
  return s;
}

}  // namespace dlsim::gnn
