// The edge stream and the bounded sample stores of online GNN inference (online_sampler.h).
#include "dlsim/gnn/online/online_sampler.h"

#include <algorithm>

namespace dlsim::gnn {
namespace {

// Fixed-capacity rows: vertex v owns slots [v k, v k + k).
class RowStore : public SampleStore {
 public:
  RowStore(int64_t nodes, int k)
      : k_(std::max(1, k)), count_(nodes, 0), seen_(nodes, 0), slots_(nodes * k_) {}
  std::span<const NodeId> Sample(NodeId v) const override {
    return {slots_.data() + static_cast<int64_t>(v) * k_, static_cast<size_t>(count_[v])};
  }
  double Bytes() const override { return static_cast<double>(slots_.size()) * 4 + count_.size() * 8.0; }

 protected:
  NodeId* Row(NodeId v) { return slots_.data() + static_cast<int64_t>(v) * k_; }
  int k_;
  std::vector<int32_t> count_;
  std::vector<int64_t> seen_;  // neighbours offered so far (reservoir)
  std::vector<NodeId> slots_;
};

class TopK final : public RowStore {
 public:
  using RowStore::RowStore;
  SampleChange Insert(NodeId v, NodeId u, Rng&) override {
    NodeId* row = Row(v);
    SampleChange c{.changed = true, .evicted = std::nullopt};
    if (count_[v] == k_) {
      c.evicted = row[k_ - 1];
    } else {
      ++count_[v];
    }
    std::copy_backward(row, row + count_[v] - 1, row + count_[v]);  // most recent first
    row[0] = u;
    return c;
  }
};

class Reservoir final : public RowStore {
 public:
  using RowStore::RowStore;
  SampleChange Insert(NodeId v, NodeId u, Rng& rng) override {
    NodeId* row = Row(v);
    const int64_t seen = ++seen_[v];
    if (count_[v] < k_) {
      row[count_[v]++] = u;
      return {.changed = true, .evicted = std::nullopt};
    }
    const auto j = static_cast<int64_t>(rng.NextBelow(static_cast<uint64_t>(seen)));
    if (j >= k_) return {};
    SampleChange c{.changed = true, .evicted = row[j]};
    row[j] = u;
    return c;
  }
};

class All final : public SampleStore {
 public:
  All(int64_t nodes, int) : rows_(nodes) {}
  SampleChange Insert(NodeId v, NodeId u, Rng&) override {
    rows_[v].push_back(u);
    return {.changed = true, .evicted = std::nullopt};
  }
  std::span<const NodeId> Sample(NodeId v) const override { return rows_[v]; }
  double Bytes() const override {
    double b = 0;
    for (const auto& r : rows_) b += 4.0 * static_cast<double>(r.size()) + 24;
    return b;
  }

 private:
  std::vector<std::vector<NodeId>> rows_;
};

}  // namespace

std::vector<StreamEdge> ReplayEdges(const EdgeList& edges, double rate_per_s, uint64_t seed) {
  std::vector<std::pair<NodeId, NodeId>> pairs;
  pairs.reserve(edges.src.size());
  for (size_t i = 0; i < edges.src.size(); ++i) {
    const NodeId a = std::min(edges.src[i], edges.dst[i]), b = std::max(edges.src[i], edges.dst[i]);
    if (a != b) pairs.emplace_back(a, b);
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  Rng rng(seed);
  Rng order = rng.Stream("order"), gaps = rng.Stream("arrivals");
  for (size_t i = pairs.size(); i > 1; --i) std::swap(pairs[i - 1], pairs[order.NextBelow(i)]);
  std::vector<StreamEdge> out;
  out.reserve(pairs.size());
  double t = 0;
  for (const auto& [a, b] : pairs) {
    t += SampleExponential(gaps, rate_per_s);
    out.push_back({static_cast<int64_t>(t * 1e9), a, b});
  }
  return out;
}

void RegisterSampleStores(SampleStoreRegistry& reg) {
  reg.RegisterBuiltin("top-k", "the k most recent neighbours of each vertex (Helios' default)",
                      [](int64_t n, int k) { return std::make_unique<TopK>(n, k); });
  reg.RegisterBuiltin("reservoir", "k neighbours uniform over the stream (reservoir sampling, algorithm R)",
                      [](int64_t n, int k) { return std::make_unique<Reservoir>(n, k); });
  reg.RegisterBuiltin("all", "every neighbour (for checks: equals on-demand sampling of the snapshot)",
                      [](int64_t n, int k) { return std::make_unique<All>(n, k); });
}

}  // namespace dlsim::gnn
