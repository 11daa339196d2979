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

// Belady's MIN with bypass over the announced window: a max-heap of (next read, node) with lazy
// deletion (an entry is current while the node is cached and its next read still matches). Reads
// are numbered from the first Foresee on; O(log capacity) per access, O(window + capacity) per
// Foresee.
class BeladyCache final : public FeatureCache {
 public:
  BeladyCache(int64_t ids, int64_t capacity)
      : next_use_(static_cast<size_t>(ids), kNever),
        scratch_(static_cast<size_t>(ids), kNever),
        slot_(static_cast<size_t>(ids), -1),
        capacity_(static_cast<size_t>(capacity)) {}
  bool WantsForesight() const override { return true; }
  void Foresee(std::span<const NodeId> upcoming) override {
    base_ = at_;
    window_.assign(upcoming.size(), kNever);
    for (size_t i = upcoming.size(); i-- > 0;) {  // scratch_[v]: v's next read after position i
      window_[i] = scratch_[upcoming[i]];
      scratch_[upcoming[i]] = base_ + static_cast<int64_t>(i);
    }
    heap_.clear();  // a cached node's next read is now its first read in the window (or never)
    for (NodeId v : members_) heap_.push_back({next_use_[v] = scratch_[v], v});
    std::make_heap(heap_.begin(), heap_.end());
    for (NodeId v : upcoming) scratch_[v] = kNever;
  }
  bool Access(NodeId v) override {
    const int64_t i = at_++ - base_;
    const int64_t next = i < static_cast<int64_t>(window_.size()) ? window_[static_cast<size_t>(i)] : kNever;
    if (slot_[v] >= 0) {
      Reschedule(v, next);
      return true;
    }
    if (capacity_ == 0 || next == kNever) return false;  // bypass: not read again (as far as known)
    if (members_.size() == capacity_) {
      const Entry top = Top();
      if (top.next <= next) return false;  // everything cached is read sooner: do not admit
      Evict(top.node);
    }
    slot_[v] = static_cast<int32_t>(members_.size());
    members_.push_back(v);
    Reschedule(v, next);
    return false;
  }
  std::string_view name() const override { return "belady"; }

 private:
  static constexpr int64_t kNever = INT64_MAX;
  struct Entry {
    int64_t next;
    NodeId node;
    bool operator<(const Entry& o) const { return next != o.next ? next < o.next : node < o.node; }
  };
  void Reschedule(NodeId v, int64_t next) {
    next_use_[v] = next;
    heap_.push_back({next, v});
    std::push_heap(heap_.begin(), heap_.end());
  }
  Entry Top() {  // the cached node read farthest in the future
    while (slot_[heap_.front().node] < 0 || next_use_[heap_.front().node] != heap_.front().next) {
      std::pop_heap(heap_.begin(), heap_.end());
      heap_.pop_back();
    }
    return heap_.front();
  }
  void Evict(NodeId v) {  // swap-remove from members_
    const auto s = static_cast<size_t>(slot_[v]);
    members_[s] = members_.back();
    slot_[members_[s]] = static_cast<int32_t>(s);
    members_.pop_back();
    slot_[v] = -1;
    next_use_[v] = kNever;
  }
  std::vector<int64_t> next_use_;  // per cached id: its next read (absolute), kNever when none
  std::vector<int64_t> scratch_;   // per id, during Foresee only
  std::vector<int32_t> slot_;      // per id: its index in members_, -1 when not cached
  std::vector<NodeId> members_;
  std::vector<int64_t> window_;  // per announced read: the next read of the same id (absolute)
  std::vector<Entry> heap_;
  size_t capacity_;
  int64_t at_ = 0, base_ = 0;
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
  reg.RegisterBuiltin("fifo", "BGL: first in, first out (O(1); pairs with the bfs seed order)",
                      [](const CacheContext& c) { return std::make_unique<FifoCache>(c.Ids(), c.capacity); });
  reg.RegisterBuiltin("lru", "Least recently used",
                      [](const CacheContext& c) { return std::make_unique<LruCache>(c.Ids(), c.capacity); });
  reg.RegisterBuiltin(
      "belady", "Ginex: optimal replacement over the announced accesses (inspector-executor)",
      [](const CacheContext& c) { return std::make_unique<BeladyCache>(c.Ids(), c.capacity); });
}

}  // namespace dlsim::gnn
