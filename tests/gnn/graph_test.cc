// Graphs: CSR/CSC construction, clean-up, degree statistics, R-MAT, splits.
#include "dlsim/gnn/graph.h"

#include <gtest/gtest.h>

#include <set>

#include "dlsim/gnn/dataset.h"
#include "dlsim/gnn/rmat.h"

namespace dlsim::gnn {
namespace {

std::vector<NodeId> Vec(std::span<const NodeId> s) { return {s.begin(), s.end()}; }

TEST(GraphTest, UndirectedCsrStoresBothDirectionsSortedAndDeduplicated) {
  // 0-1, 1-2, 2-3, a duplicate 1-0 and a self-loop 3-3.
  EdgeList e{.num_nodes = 4, .src = {0, 1, 2, 1, 3}, .dst = {1, 2, 3, 0, 3}};
  auto g = BuildGraph(e, {.undirected = true});
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->num_nodes(), 4);
  EXPECT_EQ(g->num_edges(), 6);
  EXPECT_EQ(Vec(g->Neighbors(0)), (std::vector<NodeId>{1}));
  EXPECT_EQ(Vec(g->Neighbors(1)), (std::vector<NodeId>{0, 2}));
  EXPECT_EQ(Vec(g->Neighbors(3)), (std::vector<NodeId>{2}));
  EXPECT_EQ(Vec(g->InNeighbors(1)), Vec(g->Neighbors(1)));
  EXPECT_DOUBLE_EQ(g->MemoryBytes(), 5 * 8 + 6 * 4);
}

TEST(GraphTest, DirectedGraphHasCsc) {
  EdgeList e{.num_nodes = 3, .src = {0, 0, 1}, .dst = {1, 2, 2}};
  auto g = BuildGraph(e, {.undirected = false});
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->num_edges(), 3);
  EXPECT_EQ(Vec(g->Neighbors(0)), (std::vector<NodeId>{1, 2}));
  EXPECT_TRUE(g->Neighbors(2).empty());
  EXPECT_EQ(Vec(g->InNeighbors(2)), (std::vector<NodeId>{0, 1}));
  EXPECT_EQ(g->InDegree(0), 0);
}

TEST(GraphTest, DegreeStats) {
  // A star: centre 0 with 4 leaves, and an isolated node 5.
  EdgeList e{.num_nodes = 6, .src = {0, 0, 0, 0}, .dst = {1, 2, 3, 4}};
  auto g = BuildGraph(e, {.undirected = true});
  ASSERT_TRUE(g.ok());
  const DegreeStats s = ComputeDegreeStats(*g);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 8.0 / 6);
  EXPECT_EQ(s.p50, 1);
  EXPECT_EQ(s.isolated, 1);
}

TEST(GraphTest, BadGraphsAreErrors) {
  EXPECT_FALSE(BuildGraph(EdgeList{}, {}).ok());
  auto out_of_range = BuildGraph(EdgeList{.num_nodes = 2, .src = {0}, .dst = {2}}, {});
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().message.find("node id 2 is out of range"), std::string::npos);
  auto only_loops = BuildGraph(EdgeList{.num_nodes = 2, .src = {1}, .dst = {1}}, {});
  ASSERT_FALSE(only_loops.ok());
  EXPECT_NE(only_loops.error().message.find("empty"), std::string::npos);
}

TEST(RmatTest, SizesSkewAndDeterminism) {
  auto a = GenerateRmat({.scale = 12, .seed = 7});
  auto b = GenerateRmat({.scale = 12, .seed = 7});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->num_nodes, 4096);
  EXPECT_EQ(a->src.size(), 4096u * 16);
  EXPECT_EQ(a->src, b->src);
  EXPECT_EQ(a->dst, b->dst);
  auto g = BuildGraph(*a, {.undirected = true});
  ASSERT_TRUE(g.ok());
  const DegreeStats s = ComputeDegreeStats(*g);
  EXPECT_GT(s.max, 20 * s.p50);  // power-law skew: hubs far above the median
  EXPECT_GT(s.isolated, 0);      // R-MAT leaves many nodes without an edge
}

TEST(RmatTest, QuadrantFrequenciesMatchProbabilities) {
  // One level: the quadrant counts estimate (a, b, c, d) directly.
  auto e = GenerateRmat({.scale = 1, .edge_factor = 1024, .seed = 3, .permute = false});
  ASSERT_TRUE(e.ok());
  int counts[2][2] = {};
  for (size_t i = 0; i < e->src.size(); ++i) ++counts[e->src[i]][e->dst[i]];
  const double m = 2048;
  EXPECT_NEAR(counts[0][0] / m, 0.57, 0.04);
  EXPECT_NEAR(counts[0][1] / m, 0.19, 0.03);
  EXPECT_NEAR(counts[1][0] / m, 0.19, 0.03);
  EXPECT_NEAR(counts[1][1] / m, 0.05, 0.02);
}

TEST(RmatTest, BadOptions) {
  EXPECT_FALSE(GenerateRmat({.scale = 0}).ok());
  EXPECT_FALSE(GenerateRmat({.scale = 31}).ok());
  EXPECT_FALSE(GenerateRmat({.a = 0.9, .b = 0.2}).ok());
}

TEST(SplitTest, DisjointSizedAndSeeded) {
  auto s = SplitNodes(1000, {.train = 0.6, .val = 0.2, .test = 0.1, .seed = 5});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->train.size(), 600u);
  EXPECT_EQ(s->val.size(), 200u);
  EXPECT_EQ(s->test.size(), 100u);
  std::set<NodeId> all(s->train.begin(), s->train.end());
  all.insert(s->val.begin(), s->val.end());
  all.insert(s->test.begin(), s->test.end());
  EXPECT_EQ(all.size(), 900u);
  EXPECT_EQ(s->train, SplitNodes(1000, {.train = 0.6, .val = 0.2, .test = 0.1, .seed = 5})->train);
  EXPECT_FALSE(SplitNodes(1000, {.train = 0.8, .val = 0.3}).ok());
  EXPECT_FALSE(SplitNodes(5, {.train = 0.01}).ok());
}

TEST(FeatureSpecTest, BytesPerNode) {
  EXPECT_DOUBLE_EQ((FeatureSpec{.dim = 100, .dtype = hw::DType::kFp16}).PerNode().ToBytes(), 200);
}

}  // namespace
}  // namespace dlsim::gnn
