// Samplers and seed orders on hand-made graphs: exact neighbour sets under a fixed seed.
#include "dlsim/gnn/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "dlsim/gnn/seed_order.h"

namespace dlsim::gnn {
namespace {

// 0 - {1, 2, 3, 4, 5}; 1 - 6; 2 - 7; 6 - 8 (undirected).
Graph HandGraph() {
  EdgeList e{.num_nodes = 9, .src = {0, 0, 0, 0, 0, 1, 2, 6}, .dst = {1, 2, 3, 4, 5, 6, 7, 8}};
  return std::move(BuildGraph(e, {.undirected = true}).value());
}

std::unique_ptr<Sampler> Make(const std::string& name, const Graph& g, SamplerOptions o) {
  SamplerRegistry reg("sampler");
  RegisterSamplers(reg);
  return std::move(reg.Create(name, g, o).value());
}

std::map<NodeId, std::set<NodeId>> ByDst(const std::vector<std::pair<NodeId, NodeId>>& edges) {
  std::map<NodeId, std::set<NodeId>> out;
  for (auto [d, s] : edges) out[d].insert(s);
  return out;
}

TEST(SamplerTest, UniformTakesEveryNeighbourWhenTheFanoutCovers) {
  const Graph g = HandGraph();
  auto s = Make("uniform", g, {.fanouts = {5, 5}, .record_edges = true});
  Rng rng(1);
  MiniBatch mb;
  const NodeId seeds[] = {0};
  s->Sample(seeds, rng, mb);
  ASSERT_EQ(mb.frontiers.size(), 3u);
  EXPECT_EQ(ByDst(mb.sampled[0])[0], (std::set<NodeId>{1, 2, 3, 4, 5}));
  EXPECT_EQ(mb.frontiers[1], (std::vector<NodeId>{0, 1, 2, 3, 4, 5}));
  // Hop 2 samples from every node of frontier 1 (the seed again, and its five neighbours).
  auto hop2 = ByDst(mb.sampled[1]);
  EXPECT_EQ(hop2[1], (std::set<NodeId>{0, 6}));
  EXPECT_EQ(hop2[2], (std::set<NodeId>{0, 7}));
  EXPECT_EQ(hop2[3], (std::set<NodeId>{0}));
  EXPECT_EQ(mb.edges, (std::vector<int64_t>{5, 5 + 2 + 2 + 1 + 1 + 1}));
  EXPECT_EQ(std::set<NodeId>(mb.InputNodes().begin(), mb.InputNodes().end()),
            (std::set<NodeId>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// Floyd's algorithm, written out: the reference for a fanout below the degree.
std::set<NodeId> FloydReference(std::span<const NodeId> nbrs, size_t k, Rng& rng) {
  std::vector<size_t> picked;
  for (size_t j = nbrs.size() - k; j < nbrs.size(); ++j) {
    size_t t = rng.NextBelow(j + 1);
    bool seen = false;
    for (size_t p : picked) seen |= p == t;
    picked.push_back(seen ? j : t);
  }
  std::set<NodeId> out;
  for (size_t i : picked) out.insert(nbrs[i]);
  return out;
}

TEST(SamplerTest, UniformWithAFixedSeedGivesTheExactSet) {
  const Graph g = HandGraph();
  auto s = Make("uniform", g, {.fanouts = {2}, .record_edges = true});
  Rng a(42), b(42);
  MiniBatch mb;
  const NodeId seeds[] = {0};
  s->Sample(seeds, a, mb);
  const std::set<NodeId> got = ByDst(mb.sampled[0])[0];
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(got, FloydReference(g.Neighbors(0), 2, b));
  EXPECT_EQ(got, (std::set<NodeId>{3, 5}));  // pinned: seed 42 must keep giving this set
}

TEST(SamplerTest, UniformIsUniform) {
  const Graph g = HandGraph();
  auto s = Make("uniform", g, {.fanouts = {2}});
  Rng rng(9);
  MiniBatch mb;
  const NodeId seeds[] = {0};
  std::map<NodeId, int> count;
  const int trials = 20000;
  for (int i = 0; i < trials; ++i) {
    s->Sample(seeds, rng, mb);
    for (size_t j = 1; j < mb.frontiers[1].size(); ++j) ++count[mb.frontiers[1][j]];
  }
  for (NodeId v = 1; v <= 5; ++v) EXPECT_NEAR(count[v] / double(trials), 2.0 / 5, 0.02) << v;
}

TEST(SamplerTest, FullSamplerAndDeterminism) {
  const Graph g = HandGraph();
  auto s = Make("full", g, {.fanouts = {1, 1}});
  Rng rng(3);
  MiniBatch mb;
  const NodeId seeds[] = {6};
  s->Sample(seeds, rng, mb);
  EXPECT_EQ(mb.frontiers[1], (std::vector<NodeId>{6, 1, 8}));
  EXPECT_EQ(mb.frontiers[2], (std::vector<NodeId>{6, 1, 8, 0}));
  EXPECT_EQ(mb.TotalEdges(), 2 + 2 + 2 + 1);
}

TEST(SamplerTest, RandomWalkTopVisited) {
  // A path 0 - 1 - 2: walks of one step from 1 visit 0 or 2; with fanout 1 the more visited wins.
  auto g = BuildGraph(EdgeList{.num_nodes = 3, .src = {0, 1}, .dst = {1, 2}}, {.undirected = true});
  auto s = Make("random-walk", *g, {.fanouts = {2}, .walks = 8, .walk_length = 1, .record_edges = true});
  Rng rng(5);
  MiniBatch mb;
  const NodeId seeds[] = {1};
  s->Sample(seeds, rng, mb);
  EXPECT_EQ(ByDst(mb.sampled[0])[1], (std::set<NodeId>{0, 2}));
  // Two-step walks from 0 return to 0 (not counted) or reach 2: 1 and 2 are the neighbours.
  const NodeId zero[] = {0};
  auto s2 = Make("random-walk", *g, {.fanouts = {5}, .walks = 8, .walk_length = 2, .record_edges = true});
  s2->Sample(zero, rng, mb);
  EXPECT_EQ(ByDst(mb.sampled[0])[0], (std::set<NodeId>{1, 2}));
}

TEST(SamplerTest, ImportancePrefersHeavyNeighbours) {
  // Node 0's neighbours: 1 (degree 1) and hub 2 (degree 11): weights 2 and 12.
  EdgeList e{.num_nodes = 13, .src = {0, 0}, .dst = {1, 2}};
  for (NodeId v = 3; v < 13; ++v) {
    e.src.push_back(2);
    e.dst.push_back(v);
  }
  auto g = BuildGraph(e, {.undirected = true});
  auto s = Make("importance", *g, {.fanouts = {1}});
  Rng rng(11);
  MiniBatch mb;
  const NodeId seeds[] = {0};
  int hub = 0;
  for (int i = 0; i < 7000; ++i) {
    s->Sample(seeds, rng, mb);
    hub += mb.frontiers[1][1] == 2;
  }
  EXPECT_NEAR(hub / 7000.0, 12.0 / 14, 0.02);
}

TEST(SamplerTest, LayerWiseKeepsEdgesIntoDrawnNodes) {
  const Graph g = HandGraph();
  auto s = Make("layer-wise", g, {.fanouts = {50}, .record_edges = true});
  Rng rng(2);
  MiniBatch mb;
  const NodeId seeds[] = {1, 2};  // neighbours {0, 6} and {0, 7}: 50 draws reach all three
  s->Sample(seeds, rng, mb);
  auto by = ByDst(mb.sampled[0]);
  EXPECT_EQ(by[1], (std::set<NodeId>{0, 6}));
  EXPECT_EQ(by[2], (std::set<NodeId>{0, 7}));
}

TEST(SamplerTest, BadOptions) {
  EXPECT_FALSE(CheckSamplerOptions({.fanouts = {}}).ok());
  auto zero = CheckSamplerOptions({.fanouts = {25, 0}});
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, "fanouts[1] is 0; a fanout must be >= 1");
  SamplerRegistry reg("sampler");
  RegisterSamplers(reg);
  const Graph g = HandGraph();
  auto unknown = reg.Create("unifrom", g, {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("did you mean 'uniform'"), std::string::npos);
}

std::unique_ptr<SeedOrder> MakeOrder(const std::string& name, const Graph& g, SeedOrderOptions o = {}) {
  SeedOrderRegistry reg("seed-order");
  RegisterSeedOrders(reg);
  return std::move(reg.Create(name, g, o).value());
}

TEST(SeedOrderTest, EveryOrderIsAPermutation) {
  const Graph g = HandGraph();
  const std::vector<NodeId> train = {0, 2, 4, 6, 8};
  for (const char* name : {"shuffle", "sequential", "bfs"}) {
    auto order = MakeOrder(name, g, {.sequences = 2, .batch_size = 2});
    Rng rng(4);
    std::vector<NodeId> seq = order->EpochOrder(train, rng);
    std::sort(seq.begin(), seq.end());
    EXPECT_EQ(seq, train) << name;
  }
}

// Above 256 draws per node the importance sampler keeps each neighbour with probability
// 1 - exp(-fanout w / W) (one pass over the neighbours, so a fanout of 2^20 cannot hang). A star: node 0 with
// 1,000 leaves of in-degree 1 (weight 2 each, W = 2,000). At fanout 300 a leaf is kept with probability
// 1 - exp(-0.3) = 0.2592 (300 exact draws: 1 - 0.999^300 = 0.2593), so 259.2 of them on average; at 2^20
// all 1,000.
TEST(SamplerTest, ImportanceWithHugeFanoutsKeepsNeighboursAtThePoissonRate) {
  EdgeList e{.num_nodes = 1001};
  for (NodeId v = 1; v <= 1000; ++v) {
    e.src.push_back(0);
    e.dst.push_back(v);
  }
  auto g = BuildGraph(e, {.undirected = true});
  const NodeId seeds[] = {0};
  MiniBatch mb;
  Rng rng(9);
  auto all = Make("importance", *g, {.fanouts = {1 << 20}});
  all->Sample(seeds, rng, mb);
  EXPECT_EQ(mb.frontiers[1].size(), 1001u);
  auto s = Make("importance", *g, {.fanouts = {300}});
  double kept = 0;
  for (int i = 0; i < 400; ++i) {
    s->Sample(seeds, rng, mb);
    kept += static_cast<double>(mb.frontiers[1].size() - 1);
  }
  EXPECT_NEAR(kept / 400, 1000 * -std::expm1(-0.3), 2.5);  // 3.6 standard errors
}

TEST(SeedOrderTest, BfsFollowsTheGraph) {
  // A path 0-1-...-9: one BFS part from any root lists nodes by distance from it, so consecutive
  // nodes are never more than two hops apart.
  EdgeList e;
  e.num_nodes = 10;
  for (NodeId v = 0; v + 1 < 10; ++v) {
    e.src.push_back(v);
    e.dst.push_back(v + 1);
  }
  auto g = BuildGraph(e, {.undirected = true});
  auto order = MakeOrder("bfs", *g, {.sequences = 1, .batch_size = 4});
  std::vector<NodeId> train(10);
  for (NodeId v = 0; v < 10; ++v) train[v] = v;
  Rng rng(8);
  const std::vector<NodeId> seq = order->EpochOrder(train, rng);
  std::set<NodeId> seen = {seq[0]};
  for (size_t i = 1; i < seq.size(); ++i) {
    EXPECT_LE(std::abs(int(seq[i]) - int(seq[i - 1])), int(seen.size())) << i;
    seen.insert(seq[i]);
  }
}

}  // namespace
}  // namespace dlsim::gnn
