#include "dlsim/gnn/seed_order.h"

#include <algorithm>
#include <deque>

#include "node_set.h"

namespace dlsim::gnn {
namespace {

void Shuffle(std::vector<NodeId>& v, Rng& rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.NextBelow(i)]);
}

class ShuffleOrder final : public SeedOrder {
 public:
  std::vector<NodeId> EpochOrder(std::span<const NodeId> train, Rng& rng) override {
    std::vector<NodeId> out(train.begin(), train.end());
    Shuffle(out, rng);
    return out;
  }
  std::string_view name() const override { return "shuffle"; }
};

class SequentialOrder final : public SeedOrder {
 public:
  std::vector<NodeId> EpochOrder(std::span<const NodeId> train, Rng&) override {
    std::vector<NodeId> out(train.begin(), train.end());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::string_view name() const override { return "sequential"; }
};

class BfsOrder final : public SeedOrder {
 public:
  BfsOrder(const Graph& g, const SeedOrderOptions& o)
      : g_(g), o_(o), is_train_(g.num_nodes()), visited_(g.num_nodes()) {}
  std::string_view name() const override { return "bfs"; }

  std::vector<NodeId> EpochOrder(std::span<const NodeId> train, Rng& rng) override {
    const std::vector<NodeId> seq = BfsSequence(train, rng);
    return Interleave(seq);
  }

 private:
  // Training nodes in BFS visiting order; roots are the training nodes in a random order.
  std::vector<NodeId> BfsSequence(std::span<const NodeId> train, Rng& rng) {
    std::vector<NodeId> roots(train.begin(), train.end());
    Shuffle(roots, rng);
    is_train_.Clear();
    for (NodeId v : train) is_train_.Insert(v);
    visited_.Clear();
    std::vector<NodeId> seq;
    seq.reserve(train.size());
    std::deque<NodeId> queue;
    for (NodeId root : roots) {
      if (!visited_.Insert(root)) continue;
      queue.push_back(root);
      while (!queue.empty() && seq.size() < train.size()) {
        const NodeId v = queue.front();
        queue.pop_front();
        if (is_train_.Contains(v)) seq.push_back(v);
        for (NodeId u : g_.Neighbors(v))
          if (visited_.Insert(u)) queue.push_back(u);
      }
      queue.clear();
    }
    return seq;
  }

  // Cuts `seq` into o_.sequences parts; batch b takes its share of every part in turn.
  std::vector<NodeId> Interleave(const std::vector<NodeId>& seq) const {
    const size_t parts = std::max<size_t>(1, std::min<size_t>(o_.sequences, seq.size()));
    const size_t per_part = (seq.size() + parts - 1) / parts;
    const size_t share = std::max<size_t>(1, static_cast<size_t>(o_.batch_size) / parts);
    std::vector<size_t> cursor(parts), end(parts);
    for (size_t p = 0; p < parts; ++p) {
      cursor[p] = std::min(seq.size(), p * per_part);
      end[p] = std::min(seq.size(), (p + 1) * per_part);
    }
    std::vector<NodeId> out;
    out.reserve(seq.size());
    while (out.size() < seq.size())
      for (size_t p = 0; p < parts; ++p)
        for (size_t k = 0; k < share && cursor[p] < end[p]; ++k) out.push_back(seq[cursor[p]++]);
    return out;
  }

  const Graph& g_;
  const SeedOrderOptions o_;
  internal::NodeSet is_train_;
  internal::NodeSet visited_;
};

}  // namespace

void RegisterSeedOrders(SeedOrderRegistry& reg) {
  reg.RegisterBuiltin("shuffle", "A uniform permutation of the training nodes each epoch (DGL, PyG)",
                      [](const Graph&, const SeedOrderOptions&) { return std::make_unique<ShuffleOrder>(); });
  reg.RegisterBuiltin(
      "sequential", "Training nodes in ascending id order",
      [](const Graph&, const SeedOrderOptions&) { return std::make_unique<SequentialOrder>(); });
  reg.RegisterBuiltin(
      "bfs", "BGL proximity-aware ordering: BFS sequences from random roots, batches assembled round-robin",
      [](const Graph& g, const SeedOrderOptions& o) { return std::make_unique<BfsOrder>(g, o); });
}

}  // namespace dlsim::gnn
