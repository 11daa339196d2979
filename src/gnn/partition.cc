#include "dlsim/gnn/partition.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>

#include "dlsim/core/rng.h"
#include "node_set.h"

namespace dlsim::gnn {
namespace {

Status CheckParts(const Graph& g, const PartitionOptions& o, std::string_view who) {
  if (o.parts >= 1 && o.parts <= g.num_nodes()) return Status::Ok();
  return Error::InvalidArgument(std::string(who) + ": " + std::to_string(o.parts) + " partitions for " +
                                std::to_string(g.num_nodes()) + " nodes");
}

uint64_t Mix(uint64_t x) {  // SplitMix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class HashPartitioner final : public Partitioner {
 public:
  std::string_view name() const override { return "hash"; }
  Result<std::vector<int32_t>> Partition(const Graph& g, std::span<const NodeId>,
                                         const PartitionOptions& o) const override {
    DLSIM_RETURN_IF_ERROR(CheckParts(g, o, "hash"));
    std::vector<int32_t> out(static_cast<size_t>(g.num_nodes()));
    for (size_t v = 0; v < out.size(); ++v)
      out[v] = static_cast<int32_t>(Mix(v ^ Mix(o.seed)) % static_cast<uint64_t>(o.parts));
    return out;
  }
};

// Multi-source BFS: every node joins the block of the first root to reach it, the roots expanding
// one level each in turn; nodes no root reaches start blocks of their own.
std::vector<int32_t> GrowBlocks(const Graph& g, int roots, Rng& rng, int32_t& num_blocks) {
  const auto n = static_cast<size_t>(g.num_nodes());
  std::vector<int32_t> block(n, -1);
  std::vector<NodeId> frontier, next;
  num_blocks = 0;
  for (int r = 0; r < roots; ++r) {
    const auto v = static_cast<NodeId>(rng.NextBelow(n));
    if (block[v] >= 0) continue;
    block[v] = num_blocks++;
    frontier.push_back(v);
  }
  auto expand = [&] {
    while (!frontier.empty()) {
      next.clear();
      for (NodeId v : frontier)
        for (NodeId u : g.Neighbors(v))
          if (block[u] < 0) {
            block[u] = block[v];
            next.push_back(u);
          }
      frontier.swap(next);
    }
  };
  expand();
  for (size_t v = 0; v < n; ++v) {
    if (block[v] >= 0) continue;
    block[v] = num_blocks++;
    frontier.push_back(static_cast<NodeId>(v));
    expand();
  }
  return block;
}

class BglPartitioner final : public Partitioner {
 public:
  std::string_view name() const override { return "bgl"; }
  Result<std::vector<int32_t>> Partition(const Graph& g, std::span<const NodeId> train,
                                         const PartitionOptions& o) const override {
    DLSIM_RETURN_IF_ERROR(CheckParts(g, o, "bgl"));
    Rng rng = Rng(o.seed).Stream("gnn/partition/bgl");
    int32_t num_blocks = 0;
    const std::vector<int32_t> block =
        GrowBlocks(g, o.parts * std::max(1, o.blocks_per_part), rng, num_blocks);
    return Assign(g, train, o, block, num_blocks);
  }

 private:
  // Greedy LDG-style assignment of blocks, largest first.
  static std::vector<int32_t> Assign(const Graph& g, std::span<const NodeId> train, const PartitionOptions& o,
                                     const std::vector<int32_t>& block, int32_t num_blocks) {
    const auto nb = static_cast<size_t>(num_blocks);
    std::vector<std::vector<NodeId>> members(nb);
    for (size_t v = 0; v < block.size(); ++v)
      members[static_cast<size_t>(block[v])].push_back(static_cast<NodeId>(v));
    std::vector<int64_t> train_in(nb, 0);
    for (NodeId v : train) ++train_in[static_cast<size_t>(block[v])];
    std::vector<size_t> order(nb);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return members[a].size() > members[b].size(); });
    const auto parts = static_cast<size_t>(o.parts);
    const double node_cap = (1 + o.slack) * static_cast<double>(block.size()) / static_cast<double>(parts);
    const double train_cap = (1 + o.slack) * std::max<double>(1, static_cast<double>(train.size())) / parts;
    std::vector<double> nodes(parts, 0), trains(parts, 0), affinity(parts, 0);
    std::vector<int32_t> out(block.size(), -1);
    for (size_t b : order) {
      std::fill(affinity.begin(), affinity.end(), 0.0);
      for (NodeId v : members[b])
        for (NodeId u : g.Neighbors(v))
          if (out[u] >= 0) affinity[static_cast<size_t>(out[u])] += 1;
      const auto size = static_cast<double>(members[b].size());
      const auto trained = static_cast<double>(train_in[b]);
      // Lexicographic: a partition the block fits in, then LDG's affinity x room, then room.
      size_t best = 0;
      std::tuple<bool, double, double> best_key{false, -1e300, -1e300};
      for (size_t p = 0; p < parts; ++p) {
        const double room = std::min(1 - nodes[p] / node_cap, 1 - trains[p] / train_cap);
        const bool fits = nodes[p] + size <= node_cap && trains[p] + trained <= train_cap;
        const std::tuple<bool, double, double> key{fits, affinity[p] * room, room};
        if (key > best_key) best_key = key, best = p;
      }
      for (NodeId v : members[b]) out[v] = static_cast<int32_t>(best);
      nodes[best] += size;
      trains[best] += trained;
    }
    return out;
  }
};

double MaxOverMean(const std::vector<double>& counts) {
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  if (total == 0) return 1;
  return *std::max_element(counts.begin(), counts.end()) / (total / static_cast<double>(counts.size()));
}

}  // namespace

PartitionStats EvaluatePartition(const Graph& g, std::span<const int32_t> part, int parts,
                                 std::span<const NodeId> train) {
  PartitionStats s;
  int64_t cut = 0;
  std::vector<double> nodes(static_cast<size_t>(parts), 0), trains(static_cast<size_t>(parts), 0);
  for (int64_t v = 0; v < g.num_nodes(); ++v) {
    const int32_t pv = part[static_cast<size_t>(v)];
    nodes[static_cast<size_t>(pv)] += 1;
    for (NodeId u : g.Neighbors(static_cast<NodeId>(v))) cut += part[u] != pv;
  }
  for (NodeId v : train) trains[static_cast<size_t>(part[v])] += 1;
  s.edge_cut = static_cast<double>(cut) / static_cast<double>(std::max<int64_t>(1, g.num_edges()));
  s.node_balance = MaxOverMean(nodes);
  s.train_balance = MaxOverMean(trains);
  return s;
}

void RegisterPartitioners(PartitionerRegistry& reg) {
  reg.RegisterBuiltin("hash", "Random partition: a seeded hash of the node id (DGL's default)",
                      [] { return std::make_unique<HashPartitioner>(); });
  reg.RegisterBuiltin("metis", "METIS k-way: minimum edge cut with balanced nodes (libmetis)",
                      [] { return MakeMetisPartitioner(); });
  reg.RegisterBuiltin("bgl", "BGL: multi-source BFS blocks assigned greedily for locality and balance",
                      [] { return std::make_unique<BglPartitioner>(); });
}

}  // namespace dlsim::gnn
