#include "dlsim/gnn/sampler.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "node_set.h"

namespace dlsim::gnn {
namespace {

using internal::NodeBits;
using internal::NodeSet;

// The shared hop loop: each hop asks the policy for the sampled neighbours of every frontier node
// and grows the next frontier (dst nodes first, then new sources in the order sampled).
class HopSampler : public Sampler {
 public:
  HopSampler(const Graph& g, const SamplerOptions& o) : g_(g), o_(o), in_frontier_(g.num_nodes()) {}

  void Sample(std::span<const NodeId> seeds, Rng& rng, MiniBatch& out) override {
    const size_t hops = o_.fanouts.size();
    out.frontiers.resize(hops + 1);
    out.edges.assign(hops, 0);
    out.sampled.assign(o_.record_edges ? hops : 0, {});
    out.frontiers[0].assign(seeds.begin(), seeds.end());
    for (NodeId v : seeds) in_frontier_.Insert(v);
    // The set holds frontiers[h] when hop h starts and frontiers[h + 1] when it ends.
    for (size_t h = 0; h < hops; ++h) {
      out.frontiers[h + 1] = out.frontiers[h];
      SampleHop(out.frontiers[h], o_.fanouts[h], rng, out, h);
    }
    in_frontier_.Erase(out.frontiers.back());
  }

 protected:
  // Samples hop `h` from `dst`; calls Emit for every sampled edge.
  // Prefetches the offsets, then the adjacency of the nodes a few places ahead: on a graph larger
  // than the caches each is a miss otherwise.
  virtual void SampleHop(const std::vector<NodeId>& dst, int fanout, Rng& rng, MiniBatch& out, size_t h) {
    const Csr& csr = g_.csr();
    const size_t n = dst.size();
    for (size_t i = 0; i < n; ++i) {
      if (i + 32 < n) __builtin_prefetch(&csr.offsets[dst[i + 32]]);
      if (i + 16 < n) __builtin_prefetch(csr.targets.data() + csr.offsets[dst[i + 16]]);
      SampleNode(dst[i], fanout, rng, out, h);
    }
  }
  virtual void SampleNode(NodeId v, int fanout, Rng& rng, MiniBatch& out, size_t h) {}

  void Prefetch(NodeId v) const { in_frontier_.Prefetch(v); }
  void Emit(NodeId dst, NodeId src, MiniBatch& out, size_t h) {
    ++out.edges[h];
    if (in_frontier_.Insert(src)) out.frontiers[h + 1].push_back(src);
    if (o_.record_edges) out.sampled[h].emplace_back(dst, src);
  }

  const Graph& g_;
  const SamplerOptions o_;

 private:
  NodeBits in_frontier_;
};

// GraphSAGE: min(fanout, degree) distinct neighbours, uniformly (Floyd's algorithm).
// Two passes over blocks of the frontier: the first draws every node's picks (edge indices) and
// prefetches their targets, the second emits them. On a graph larger than the caches each pick is a
// miss; drawing a block ahead keeps them in flight together. Draws and emits keep the one-pass order,
// so the sample is the same.
class UniformSampler final : public HopSampler {
 public:
  using HopSampler::HopSampler;
  std::string_view name() const override { return "uniform"; }

 private:
  static constexpr size_t kBlock = 16;

  void SampleHop(const std::vector<NodeId>& dst, int fanout, Rng& rng, MiniBatch& out, size_t h) override {
    const Csr& csr = g_.csr();
    const size_t n = dst.size();
    for (size_t b = 0; b < n; b += kBlock) {
      const size_t e = std::min(n, b + kBlock);
      for (size_t i = e; i < std::min(n, e + kBlock); ++i) __builtin_prefetch(&csr.offsets[dst[i]]);
      picks_.clear();
      ends_.clear();
      for (size_t i = b; i < e; ++i) Pick(csr, dst[i], static_cast<uint64_t>(fanout), rng);
      size_t j = 0;
      for (size_t i = b; i < e; ++i)
        for (; j < ends_[i - b]; ++j) Emit(dst[i], csr.targets[picks_[j]], out, h);
    }
  }

  // Appends v's picks to picks_ (all its edges when the degree is at most k) and prefetches them.
  void Pick(const Csr& csr, NodeId v, uint64_t k, Rng& rng) {
    const uint64_t first = csr.offsets[v];
    const uint64_t d = csr.offsets[v + 1] - first;
    const size_t start = picks_.size();
    if (d <= k) {
      for (uint64_t j = 0; j < d; ++j) picks_.push_back(first + j);
    } else {
      for (uint64_t j = d - k; j < d; ++j) {
        const uint64_t t = first + rng.NextBelow(j + 1);
        const bool seen =
            std::find(picks_.begin() + static_cast<int64_t>(start), picks_.end(), t) != picks_.end();
        picks_.push_back(seen ? first + j : t);
      }
    }
    for (size_t j = start; j < picks_.size(); ++j) __builtin_prefetch(&csr.targets[picks_[j]]);
    ends_.push_back(picks_.size());
  }

  std::vector<uint64_t> picks_;  // edge indices into csr.targets, the block's nodes in order
  std::vector<size_t> ends_;     // one past each node's last pick in picks_
};

class FullSampler final : public HopSampler {
 public:
  using HopSampler::HopSampler;
  std::string_view name() const override { return "full"; }

 private:
  void SampleNode(NodeId v, int, Rng&, MiniBatch& out, size_t h) override {
    for (NodeId u : g_.Neighbors(v)) Emit(v, u, out, h);
  }
};

// LADIES-style layer-wise sampling: `fanout` draws from the multiset of the frontier's neighbours
// (a node's chance grows with its edges into the frontier); every edge from the frontier into a
// drawn node is kept.
class LayerWiseSampler final : public HopSampler {
 public:
  LayerWiseSampler(const Graph& g, const SamplerOptions& o) : HopSampler(g, o), drawn_(g.num_nodes()) {}
  std::string_view name() const override { return "layer-wise"; }

 private:
  void SampleHop(const std::vector<NodeId>& dst, int fanout, Rng& rng, MiniBatch& out, size_t h) override {
    prefix_.clear();
    uint64_t total = 0;
    for (NodeId v : dst) prefix_.push_back(total += static_cast<uint64_t>(g_.Degree(v)));
    if (total == 0) return;
    drawn_.Clear();
    for (int i = 0; i < fanout; ++i) {
      const uint64_t r = rng.NextBelow(total);
      const size_t row =
          static_cast<size_t>(std::upper_bound(prefix_.begin(), prefix_.end(), r) - prefix_.begin());
      const uint64_t before = row == 0 ? 0 : prefix_[row - 1];
      drawn_.Insert(g_.Neighbors(dst[row])[r - before]);
    }
    for (NodeId v : dst)
      for (NodeId u : g_.Neighbors(v))
        if (drawn_.Contains(u)) Emit(v, u, out, h);
  }
  std::vector<uint64_t> prefix_;
  NodeSet drawn_;
};

// PinSAGE: `walks` random walks of `walk_length` steps from v; the `fanout` most-visited nodes
// (ties: lower id) other than v are its neighbours.
class RandomWalkSampler final : public HopSampler {
 public:
  using HopSampler::HopSampler;
  std::string_view name() const override { return "random-walk"; }

 private:
  void SampleNode(NodeId v, int fanout, Rng& rng, MiniBatch& out, size_t h) override {
    visits_.clear();
    for (int w = 0; w < o_.walks; ++w) {
      NodeId at = v;
      for (int s = 0; s < o_.walk_length; ++s) {
        const std::span<const NodeId> nbrs = g_.Neighbors(at);
        if (nbrs.empty()) break;
        at = nbrs[rng.NextBelow(nbrs.size())];
        if (at != v) visits_.push_back(at);
      }
    }
    std::sort(visits_.begin(), visits_.end());
    counted_.clear();
    for (size_t i = 0; i < visits_.size();) {
      size_t j = i;
      while (j < visits_.size() && visits_[j] == visits_[i]) ++j;
      counted_.emplace_back(-static_cast<int64_t>(j - i), visits_[i]);
      i = j;
    }
    const size_t k = std::min(counted_.size(), static_cast<size_t>(fanout));
    std::partial_sort(counted_.begin(), counted_.begin() + static_cast<int64_t>(k), counted_.end());
    for (size_t i = 0; i < k; ++i) Emit(v, counted_[i].second, out, h);
  }
  std::vector<NodeId> visits_;
  std::vector<std::pair<int64_t, NodeId>> counted_;
};

// AliGraph weighted neighbour sampling: `fanout` draws with replacement, neighbour u weighted by
// in-degree(u) + 1, repeated picks merged. Above kExactDraws draws per node (a fanout no AliGraph setting
// uses) each neighbour is kept independently with probability 1 - exp(-fanout w_u / W), the Poisson limit of
// the draws: O(degree) per node instead of O(fanout log degree), so a fanout of 10^6 does not hang.
class ImportanceSampler final : public HopSampler {
 public:
  using HopSampler::HopSampler;
  std::string_view name() const override { return "importance"; }

 private:
  static constexpr int kExactDraws = 256;

  void SampleNode(NodeId v, int fanout, Rng& rng, MiniBatch& out, size_t h) override {
    const std::span<const NodeId> nbrs = g_.Neighbors(v);
    if (nbrs.empty()) return;
    prefix_.clear();
    uint64_t total = 0;
    for (NodeId u : nbrs) prefix_.push_back(total += static_cast<uint64_t>(g_.InDegree(u)) + 1);
    picked_.clear();
    if (fanout > kExactDraws) {
      KeepPoisson(nbrs, fanout, total, rng);
    } else {
      for (int i = 0; i < fanout; ++i) {
        const uint64_t r = rng.NextBelow(total);
        picked_.push_back(nbrs[std::upper_bound(prefix_.begin(), prefix_.end(), r) - prefix_.begin()]);
      }
    }
    std::sort(picked_.begin(), picked_.end());
    picked_.erase(std::unique(picked_.begin(), picked_.end()), picked_.end());
    for (NodeId u : picked_) Emit(v, u, out, h);
  }
  // Keeps neighbour i with probability 1 - exp(-fanout w_i / total), w_i from prefix_.
  void KeepPoisson(std::span<const NodeId> nbrs, int fanout, uint64_t total, Rng& rng) {
    uint64_t before = 0;
    for (size_t i = 0; i < nbrs.size(); ++i) {
      const double w = static_cast<double>(prefix_[i] - before) / static_cast<double>(total);
      before = prefix_[i];
      if (rng.NextDouble() < -std::expm1(-fanout * w)) picked_.push_back(nbrs[i]);
    }
  }
  std::vector<uint64_t> prefix_;
  std::vector<NodeId> picked_;
};

template <typename T>
SamplerRegistry::Factory Make() {
  return [](const Graph& g, const SamplerOptions& o) { return std::make_unique<T>(g, o); };
}

}  // namespace

Status CheckSamplerOptions(const SamplerOptions& o) {
  if (o.fanouts.empty()) return Error::InvalidArgument("fanouts is empty; give one fanout per hop");
  for (size_t i = 0; i < o.fanouts.size(); ++i)
    if (o.fanouts[i] < 1)
      return Error::InvalidArgument("fanouts[" + std::to_string(i) + "] is " + std::to_string(o.fanouts[i]) +
                                    "; a fanout must be >= 1");
  if (o.walks < 1 || o.walk_length < 1)
    return Error::InvalidArgument("random walks need walks >= 1 and walk_length >= 1");
  return Status::Ok();
}

int64_t MiniBatch::TotalEdges() const {
  int64_t t = 0;
  for (int64_t e : edges) t += e;
  return t;
}

void RegisterSamplers(SamplerRegistry& reg) {
  reg.RegisterBuiltin("uniform", "GraphSAGE: up to fanout distinct neighbours per node, uniformly",
                      Make<UniformSampler>());
  reg.RegisterBuiltin("full", "Every neighbour of every frontier node (full-neighbour)", Make<FullSampler>());
  reg.RegisterBuiltin("layer-wise", "LADIES-style: fanout node draws per layer from the frontier's edges",
                      Make<LayerWiseSampler>());
  reg.RegisterBuiltin("random-walk", "PinSAGE: the fanout most-visited nodes of short random walks",
                      Make<RandomWalkSampler>());
  reg.RegisterBuiltin("importance", "AliGraph: fanout draws weighted by the neighbour's in-degree + 1",
                      Make<ImportanceSampler>());
}

}  // namespace dlsim::gnn
