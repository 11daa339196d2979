// Feature caches: FIFO and LRU hit ratios equal brute-force references on access streams; static
// policies cache what they say.
#include "dlsim/gnn/feature_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <list>

#include "dlsim/core/rng.h"
#include "dlsim/gnn/rmat.h"

namespace dlsim::gnn {
namespace {

// Brute force: a FIFO queue and a list searched linearly.
int FifoReferenceHits(const std::vector<NodeId>& stream, size_t cap) {
  std::deque<NodeId> q;
  int hits = 0;
  for (NodeId v : stream) {
    if (std::find(q.begin(), q.end(), v) != q.end()) {
      ++hits;
      continue;
    }
    if (cap == 0) continue;
    if (q.size() == cap) q.pop_front();
    q.push_back(v);
  }
  return hits;
}

int LruReferenceHits(const std::vector<NodeId>& stream, size_t cap) {
  std::list<NodeId> l;  // most recent first
  int hits = 0;
  for (NodeId v : stream) {
    auto it = std::find(l.begin(), l.end(), v);
    if (it != l.end()) {
      ++hits;
      l.erase(it);
    } else if (cap > 0 && l.size() == cap) {
      l.pop_back();
    }
    if (cap > 0) l.push_front(v);
  }
  return hits;
}

Graph SmallGraph() {
  return std::move(BuildGraph(GenerateRmat({.scale = 8, .seed = 2}).value(), {}).value());
}

int Hits(const std::string& policy, const Graph& g, int64_t cap, const std::vector<NodeId>& stream) {
  CachePolicyRegistry reg("cache-policy");
  RegisterCachePolicies(reg);
  auto cache = std::move(reg.Create(policy, {.graph = g, .capacity = cap}).value());
  int hits = 0;
  for (NodeId v : stream) hits += cache->Access(v);
  return hits;
}

std::vector<NodeId> SkewedStream(int n, int length, uint64_t seed) {
  Rng rng(seed);
  std::vector<NodeId> s;
  for (int i = 0; i < length; ++i) {
    const double u = rng.NextDouble();
    s.push_back(static_cast<NodeId>(u * u * u * n));  // skewed towards low ids
  }
  return s;
}

TEST(FeatureCacheTest, FifoAndLruEqualBruteForce) {
  const Graph g = SmallGraph();
  for (int64_t cap : {0, 1, 3, 17, 64, 255}) {
    for (uint64_t seed : {1, 2, 3}) {
      const std::vector<NodeId> stream = SkewedStream(256, 3000, seed);
      EXPECT_EQ(Hits("fifo", g, cap, stream), FifoReferenceHits(stream, static_cast<size_t>(cap))) << cap;
      EXPECT_EQ(Hits("lru", g, cap, stream), LruReferenceHits(stream, static_cast<size_t>(cap))) << cap;
    }
  }
}

TEST(FeatureCacheTest, FifoAndLruDifferOnAClassicStream) {
  // Capacity 2: a b a c a. LRU keeps a (hits at 3 and 5); FIFO evicts a at c (one hit).
  const Graph g = SmallGraph();
  const std::vector<NodeId> s = {0, 1, 0, 2, 0};
  EXPECT_EQ(Hits("lru", g, 2, s), 2);
  EXPECT_EQ(Hits("fifo", g, 2, s), 1);
}

TEST(FeatureCacheTest, StaticPolicies) {
  const Graph g = SmallGraph();
  NodeId hub = 0;
  for (NodeId v = 0; v < g.num_nodes(); ++v)
    if (g.InDegree(v) > g.InDegree(hub)) hub = v;
  EXPECT_EQ(Hits("degree", g, 1, {hub, hub}), 2);
  EXPECT_EQ(Hits("none", g, 100, {hub, hub}), 0);
  std::vector<uint32_t> freq(static_cast<size_t>(g.num_nodes()), 0);
  freq[7] = 5;
  CachePolicyRegistry reg("cache-policy");
  RegisterCachePolicies(reg);
  auto cache = std::move(reg.Create("frequency", {.graph = g, .capacity = 1, .frequency = freq}).value());
  EXPECT_TRUE(cache->Access(7));
  EXPECT_FALSE(cache->Access(hub == 7 ? 8 : hub));
}

// Brute force: the most hits any admission/eviction choice achieves (bypass allowed).
int OptimalHits(const std::vector<NodeId>& stream, size_t at, std::vector<NodeId>& cached, size_t cap) {
  if (at == stream.size()) return 0;
  const NodeId v = stream[at];
  if (std::find(cached.begin(), cached.end(), v) != cached.end())
    return 1 + OptimalHits(stream, at + 1, cached, cap);
  int best = OptimalHits(stream, at + 1, cached, cap);  // bypass
  if (cap == 0) return best;
  if (cached.size() < cap) {
    cached.push_back(v);
    best = std::max(best, OptimalHits(stream, at + 1, cached, cap));
    cached.pop_back();
    return best;
  }
  for (size_t i = 0; i < cached.size(); ++i) {
    const NodeId old = cached[i];
    cached[i] = v;
    best = std::max(best, OptimalHits(stream, at + 1, cached, cap));
    cached[i] = old;
  }
  return best;
}

int BeladyHits(const Graph& g, int64_t cap, const std::vector<NodeId>& stream, size_t window) {
  CachePolicyRegistry reg("cache-policy");
  RegisterCachePolicies(reg);
  auto cache = std::move(reg.Create("belady", {.graph = g, .capacity = cap}).value());
  EXPECT_TRUE(cache->WantsForesight());
  int hits = 0;
  for (size_t at = 0; at < stream.size(); at += window) {
    const size_t n = std::min(window, stream.size() - at);
    cache->Foresee(std::span<const NodeId>(stream.data() + at, n));
    for (size_t i = 0; i < n; ++i) hits += cache->Access(stream[at + i]);
  }
  return hits;
}

TEST(FeatureCacheTest, BeladyIsOptimalOnSmallStreams) {
  const Graph g = SmallGraph();
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const std::vector<NodeId> stream = SkewedStream(6, 12, seed);
    for (size_t cap : {1u, 2u, 3u}) {
      std::vector<NodeId> cached;
      const int optimal = OptimalHits(stream, 0, cached, cap);
      EXPECT_EQ(BeladyHits(g, static_cast<int64_t>(cap), stream, stream.size()), optimal)
          << "seed " << seed << " capacity " << cap;
      // With a shorter window it knows less: never better than optimal.
      const int windowed = BeladyHits(g, static_cast<int64_t>(cap), stream, 4);
      EXPECT_LE(windowed, optimal);
      EXPECT_GE(windowed, 0);
    }
  }
}

TEST(FeatureCacheTest, BeladyBeatsLruOnALoop) {
  // A loop one longer than the cache: LRU misses every read; Belady keeps most of the loop.
  const Graph g = SmallGraph();
  std::vector<NodeId> loop;
  for (int r = 0; r < 10; ++r)
    for (NodeId v = 0; v < 4; ++v) loop.push_back(v);
  EXPECT_EQ(Hits("lru", g, 3, loop), 0);
  EXPECT_GT(BeladyHits(g, 3, loop, loop.size()), 20);
}

}  // namespace
}  // namespace dlsim::gnn
