#include "dlsim/gnn/feature_cache.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace dlsim::gnn {
namespace {

class NoCache final : public FeatureCache {
 public:
  bool Access(NodeId) override { return false; }
  std::string_view name() const override { return "none"; }
};

// A fixed set of nodes, chosen once by a score (higher first, ties to the lower id).
class StaticCache final : public FeatureCache {
 public:
  template <typename Score>
  StaticCache(int64_t num_nodes, int64_t capacity, Score score, std::string_view name)
      : cached_(static_cast<size_t>(num_nodes), false), name_(name) {
    std::vector<NodeId> order(static_cast<size_t>(num_nodes));
    std::iota(order.begin(), order.end(), NodeId{0});
    const auto k = static_cast<size_t>(std::clamp<int64_t>(capacity, 0, num_nodes));
    std::partial_sort(order.begin(), order.begin() + static_cast<int64_t>(k), order.end(),
                      [&](NodeId a, NodeId b) { return score(a) != score(b) ? score(a) > score(b) : a < b; });
    for (size_t i = 0; i < k; ++i) cached_[order[i]] = true;
  }
  bool Access(NodeId v) override { return cached_[v]; }
  std::string_view name() const override { return name_; }

 private:
  std::vector<bool> cached_;
  std::string_view name_;
};

// The oldest admitted node leaves first; a hit does not refresh it.
class FifoCache final : public FeatureCache {
 public:
  FifoCache(int64_t num_nodes, int64_t capacity)
      : slot_of_(static_cast<size_t>(num_nodes), -1), ring_(static_cast<size_t>(capacity)) {}
  bool Access(NodeId v) override {
    if (slot_of_[v] >= 0) return true;
    if (ring_.empty()) return false;
    if (used_ == ring_.size()) {
      slot_of_[ring_[next_]] = -1;
    } else {
      ++used_;
    }
    ring_[next_] = v;
    slot_of_[v] = static_cast<int32_t>(next_);
    next_ = (next_ + 1) % ring_.size();
    return false;
  }
  std::string_view name() const override { return "fifo"; }

 private:
  std::vector<int32_t> slot_of_;
  std::vector<NodeId> ring_;
  size_t next_ = 0, used_ = 0;
};

// A doubly linked list over slots, most recent at the head.
class LruCache final : public FeatureCache {
 public:
  LruCache(int64_t num_nodes, int64_t capacity)
      : slot_of_(static_cast<size_t>(num_nodes), -1),
        node_(static_cast<size_t>(capacity)),
        prev_(static_cast<size_t>(capacity), -1),
        next_(static_cast<size_t>(capacity), -1) {}
  bool Access(NodeId v) override {
    const int32_t s = slot_of_[v];
    if (s >= 0) {
      Unlink(s);
      PushFront(s);
      return true;
    }
    if (node_.empty()) return false;
    int32_t slot = 0;
    if (used_ < node_.size()) {
      slot = static_cast<int32_t>(used_++);
    } else {
      slot = tail_;
      Unlink(slot);
      slot_of_[node_[static_cast<size_t>(slot)]] = -1;
    }
    node_[static_cast<size_t>(slot)] = v;
    slot_of_[v] = slot;
    PushFront(slot);
    return false;
  }
  std::string_view name() const override { return "lru"; }

 private:
  void Unlink(int32_t s) {
    const auto i = static_cast<size_t>(s);
    if (prev_[i] >= 0) next_[static_cast<size_t>(prev_[i])] = next_[i];
    if (next_[i] >= 0) prev_[static_cast<size_t>(next_[i])] = prev_[i];
    if (head_ == s) head_ = next_[i];
    if (tail_ == s) tail_ = prev_[i];
    prev_[i] = next_[i] = -1;
  }
  void PushFront(int32_t s) {
    const auto i = static_cast<size_t>(s);
    next_[i] = head_;
    if (head_ >= 0) prev_[static_cast<size_t>(head_)] = s;
    head_ = s;
    if (tail_ < 0) tail_ = s;
  }
  std::vector<int32_t> slot_of_;
  std::vector<NodeId> node_;
  std::vector<int32_t> prev_, next_;
  int32_t head_ = -1, tail_ = -1;
  size_t used_ = 0;
};

}  // namespace

bool NeedsFrequency(std::string_view policy) { return policy == "frequency"; }

void RegisterCachePolicies(CachePolicyRegistry& reg) {
  reg.RegisterBuiltin("none", "No cache: every read goes to the backing tier",
                      [](const CacheContext&) { return std::make_unique<NoCache>(); });
  reg.RegisterBuiltin("degree", "PaGraph: static cache of the highest in-degree nodes",
                      [](const CacheContext& c) {
                        const Graph& g = c.graph;
                        return std::make_unique<StaticCache>(
                            g.num_nodes(), c.capacity, [&g](NodeId v) { return g.InDegree(v); }, "degree");
                      });
  reg.RegisterBuiltin("frequency", "GNNLab-style: static cache of the most read nodes of a pre-sampled epoch",
                      [](const CacheContext& c) {
                        auto f = c.frequency;
                        return std::make_unique<StaticCache>(
                            c.graph.num_nodes(), c.capacity,
                            [f](NodeId v) { return v < f.size() ? f[v] : 0u; }, "frequency");
                      });
  reg.RegisterBuiltin(
      "fifo", "BGL: first in, first out (O(1); pairs with the bfs seed order)",
      [](const CacheContext& c) { return std::make_unique<FifoCache>(c.graph.num_nodes(), c.capacity); });
  reg.RegisterBuiltin("lru", "Least recently used", [](const CacheContext& c) {
    return std::make_unique<LruCache>(c.graph.num_nodes(), c.capacity);
  });
}

}  // namespace dlsim::gnn
