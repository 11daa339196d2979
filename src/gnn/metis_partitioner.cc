// The METIS k-way partitioner (libmetis from Debian, IDXTYPEWIDTH 32).
#include <metis.h>

#include <algorithm>
#include <string>
#include <vector>

#include "dlsim/gnn/partition.h"

namespace dlsim::gnn {
namespace {

// METIS wants a symmetric adjacency without self-loops: an undirected Graph already is; a directed
// one is symmetrised (out- and in-neighbours merged).
void SymmetricAdjacency(const Graph& g, std::vector<idx_t>& xadj, std::vector<idx_t>& adj) {
  const auto n = static_cast<size_t>(g.num_nodes());
  xadj.assign(n + 1, 0);
  adj.clear();
  std::vector<NodeId> row;
  for (size_t v = 0; v < n; ++v) {
    const auto out = g.Neighbors(static_cast<NodeId>(v));
    row.assign(out.begin(), out.end());
    if (!g.undirected()) {
      const auto in = g.InNeighbors(static_cast<NodeId>(v));
      row.insert(row.end(), in.begin(), in.end());
      std::sort(row.begin(), row.end());
      row.erase(std::unique(row.begin(), row.end()), row.end());
    }
    for (NodeId u : row)
      if (u != v) adj.push_back(static_cast<idx_t>(u));
    xadj[v + 1] = static_cast<idx_t>(adj.size());
  }
}

class MetisPartitioner final : public Partitioner {
 public:
  std::string_view name() const override { return "metis"; }
  Result<std::vector<int32_t>> Partition(const Graph& g, std::span<const NodeId>,
                                         const PartitionOptions& o) const override {
    if (o.parts < 1 || o.parts > g.num_nodes())
      return Error::InvalidArgument("metis: " + std::to_string(o.parts) + " partitions for " +
                                    std::to_string(g.num_nodes()) + " nodes");
    std::vector<int32_t> out(static_cast<size_t>(g.num_nodes()), 0);
    if (o.parts == 1) return out;
    if (g.num_edges() >= (int64_t{1} << 31))
      return Error::InvalidArgument("metis: the graph has more edges than METIS's 32-bit indices hold");
    std::vector<idx_t> xadj, adj;
    SymmetricAdjacency(g, xadj, adj);
    idx_t n = static_cast<idx_t>(g.num_nodes()), ncon = 1, nparts = o.parts, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(o.seed % 1000003);
    std::vector<idx_t> part(static_cast<size_t>(n), 0);
    const int rc = METIS_PartGraphKway(&n, &ncon, xadj.data(), adj.data(), nullptr, nullptr, nullptr, &nparts,
                                       nullptr, nullptr, options, &objval, part.data());
    if (rc != METIS_OK)
      return Error::Internal("metis: METIS_PartGraphKway failed with code " + std::to_string(rc));
    for (size_t v = 0; v < part.size(); ++v) out[v] = static_cast<int32_t>(part[v]);
    return out;
  }
};

}  // namespace

std::unique_ptr<Partitioner> MakeMetisPartitioner() { return std::make_unique<MetisPartitioner>(); }

}  // namespace dlsim::gnn
