#include "dlsim/gnn/partition.h"

#include <algorithm>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>

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
// one level each in turn; a block stops growing once its edges reach twice the mean (m / roots), so
// no block swallows the hubs' neighbourhoods; nodes no block reached start blocks of their own.
std::vector<int32_t> GrowBlocks(const Graph& g, int roots, Rng& rng, int32_t& num_blocks) {
  const auto n = static_cast<size_t>(g.num_nodes());
  const auto cap = std::max<uint64_t>(1, 2 * static_cast<uint64_t>(g.num_edges()) / std::max(1, roots));
  std::vector<int32_t> block(n, -1);
  std::vector<uint64_t> size;  // edges per block
  std::vector<NodeId> frontier, next;
  auto open = [&](NodeId v) {
    block[v] = static_cast<int32_t>(size.size());
    size.push_back(static_cast<uint64_t>(g.Degree(v)));
    frontier.push_back(v);
  };
  for (int r = 0; r < roots; ++r) {
    const auto v = static_cast<NodeId>(rng.NextBelow(n));
    if (block[v] < 0) open(v);
  }
  auto expand = [&] {
    while (!frontier.empty()) {
      next.clear();
      for (NodeId v : frontier)
        for (NodeId u : g.Neighbors(v)) {
          const auto b = static_cast<size_t>(block[v]);
          if (block[u] >= 0 || size[b] >= cap) continue;
          block[u] = block[v];
          size[b] += static_cast<uint64_t>(g.Degree(u));
          next.push_back(u);
        }
      frontier.swap(next);
    }
  };
  expand();
  for (size_t v = 0; v < n; ++v) {
    if (block[v] >= 0) continue;
    open(static_cast<NodeId>(v));
    expand();
  }
  num_blocks = static_cast<int32_t>(size.size());
  return block;
}

// Blocks in the order a BFS over the graph first meets them (restarting at the lowest unvisited
// node), so that the greedy assignment sees a block's neighbours right after it (LDG streams in
// BFS order for the same reason).
std::vector<size_t> BlockOrder(const Graph& g, const std::vector<int32_t>& block, size_t num_blocks) {
  std::vector<size_t> order;
  order.reserve(num_blocks);
  std::vector<char> seen_block(num_blocks, 0), seen(block.size(), 0);
  std::vector<NodeId> queue;
  for (size_t start = 0; start < block.size(); ++start) {
    if (seen[start]) continue;
    seen[start] = 1;
    queue.assign(1, static_cast<NodeId>(start));
    for (size_t head = 0; head < queue.size(); ++head) {
      const NodeId v = queue[head];
      const auto b = static_cast<size_t>(block[v]);
      if (!seen_block[b]) seen_block[b] = 1, order.push_back(b);
      for (NodeId u : g.Neighbors(v))
        if (!seen[u]) seen[u] = 1, queue.push_back(u);
    }
  }
  return order;
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
  // Greedy LDG-style assignment of the blocks in BFS order.
  static std::vector<int32_t> Assign(const Graph& g, std::span<const NodeId> train, const PartitionOptions& o,
                                     const std::vector<int32_t>& block, int32_t num_blocks);
};

// What a set of nodes adds to a partition.
struct Load {
  double nodes = 0, train = 0, edges = 0;
};

// The partitions' loads against their capacities (the even share plus the slack) and the
// assignment so far.
class GreedyAssigner {
 public:
  GreedyAssigner(const Graph& g, std::span<const NodeId> train, const PartitionOptions& o)
      : g_(g),
        parts_(static_cast<size_t>(o.parts)),
        load_(parts_),
        affinity_(parts_),
        is_train_(static_cast<size_t>(g.num_nodes()), 0),
        out_(static_cast<size_t>(g.num_nodes()), -1) {
    for (NodeId v : train) is_train_[v] = 1;
    const auto share = [&](double total) {
      return (1 + o.slack) * std::max(1.0, total) / static_cast<double>(parts_);
    };
    cap_ = {share(static_cast<double>(g.num_nodes())), share(static_cast<double>(train.size())),
            share(static_cast<double>(g.num_edges()))};
  }

  // Places `nodes` together where they fit best; when no partition has room for all of them, one
  // node at a time (so the balance holds within the slack).
  void Place(std::span<const NodeId> nodes) {
    const Load l = LoadOf(nodes);
    const auto [p, fits] = Best(nodes, l);
    if (fits || nodes.size() == 1) return Put(nodes, l, p);
    for (NodeId v : nodes) Place(std::span<const NodeId>(&v, 1));
  }
  std::vector<int32_t> Take() { return std::move(out_); }

 private:
  Load LoadOf(std::span<const NodeId> nodes) const {
    Load l;
    for (NodeId v : nodes) {
      l.nodes += 1;
      l.train += is_train_[v];
      l.edges += static_cast<double>(g_.Degree(v));
    }
    return l;
  }
  // Lexicographic: a partition the nodes fit in, then LDG's affinity x room, then room.
  std::pair<size_t, bool> Best(std::span<const NodeId> nodes, const Load& l) {
    std::fill(affinity_.begin(), affinity_.end(), 0.0);
    for (NodeId v : nodes)
      for (NodeId u : g_.Neighbors(v))
        if (out_[u] >= 0) affinity_[static_cast<size_t>(out_[u])] += 1;
    size_t best = 0;
    std::tuple<bool, double, double> best_key{false, -1e300, -1e300};
    for (size_t p = 0; p < parts_; ++p) {
      const Load& q = load_[p];
      const double room =
          std::min({1 - q.nodes / cap_.nodes, 1 - q.train / cap_.train, 1 - q.edges / cap_.edges});
      const bool fits = q.nodes + l.nodes <= cap_.nodes && q.train + l.train <= cap_.train &&
                        q.edges + l.edges <= cap_.edges;
      const std::tuple<bool, double, double> key{fits, affinity_[p] * room, room};
      if (key > best_key) best_key = key, best = p;
    }
    return {best, std::get<0>(best_key)};
  }
  void Put(std::span<const NodeId> nodes, const Load& l, size_t p) {
    for (NodeId v : nodes) out_[v] = static_cast<int32_t>(p);
    load_[p].nodes += l.nodes;
    load_[p].train += l.train;
    load_[p].edges += l.edges;
  }

  const Graph& g_;
  size_t parts_;
  std::vector<Load> load_;
  std::vector<double> affinity_;
  std::vector<char> is_train_;
  std::vector<int32_t> out_;
  Load cap_;
};

std::vector<int32_t> BglPartitioner::Assign(const Graph& g, std::span<const NodeId> train,
                                            const PartitionOptions& o, const std::vector<int32_t>& block,
                                            int32_t num_blocks) {
  const auto nb = static_cast<size_t>(num_blocks);
  std::vector<std::vector<NodeId>> members(nb);
  for (size_t v = 0; v < block.size(); ++v)
    members[static_cast<size_t>(block[v])].push_back(static_cast<NodeId>(v));
  GreedyAssigner assigner(g, train, o);
  for (size_t b : BlockOrder(g, block, nb)) assigner.Place(members[b]);
  return assigner.Take();
}

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
