// Partitioners: every node in exactly one partition; locality-aware partitioners cut fewer edges.
#include "dlsim/gnn/partition.h"

#include <gtest/gtest.h>

#include "dlsim/gnn/rmat.h"

namespace dlsim::gnn {
namespace {

// `k` cliques of `size` nodes in a ring, neighbouring cliques joined by one edge.
Graph RingOfCliques(int k, int size) {
  EdgeList e;
  e.num_nodes = k * size;
  for (int c = 0; c < k; ++c) {
    for (int i = 0; i < size; ++i)
      for (int j = i + 1; j < size; ++j) {
        e.src.push_back(static_cast<NodeId>(c * size + i));
        e.dst.push_back(static_cast<NodeId>(c * size + j));
      }
    e.src.push_back(static_cast<NodeId>(c * size));
    e.dst.push_back(static_cast<NodeId>(((c + 1) % k) * size + 1));
  }
  return std::move(BuildGraph(e, {}).value());
}

std::vector<int32_t> PartitionWith(const std::string& name, const Graph& g, std::span<const NodeId> train,
                                   int parts, int blocks_per_part = 4) {
  PartitionerRegistry reg("partitioner");
  RegisterPartitioners(reg);
  auto p = std::move(reg.Create(name).value());
  auto out = p->Partition(g, train, {.parts = parts, .seed = 3, .blocks_per_part = blocks_per_part});
  EXPECT_TRUE(out.ok()) << out.error().message;
  return out.ok() ? *out : std::vector<int32_t>{};
}

std::vector<NodeId> AllNodes(const Graph& g) {
  std::vector<NodeId> v(static_cast<size_t>(g.num_nodes()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<NodeId>(i);
  return v;
}

TEST(PartitionTest, EveryNodeInExactlyOnePartition) {
  const Graph g = std::move(BuildGraph(GenerateRmat({.scale = 10, .seed = 4}).value(), {}).value());
  const std::vector<NodeId> train = AllNodes(g);
  for (const char* name : {"hash", "metis", "bgl"}) {
    const std::vector<int32_t> part = PartitionWith(name, g, train, 4);
    ASSERT_EQ(part.size(), static_cast<size_t>(g.num_nodes())) << name;
    std::vector<int64_t> count(4, 0);
    for (int32_t p : part) {
      ASSERT_GE(p, 0) << name;
      ASSERT_LT(p, 4) << name;
      ++count[static_cast<size_t>(p)];
    }
    for (int64_t c : count) EXPECT_GT(c, 0) << name;
  }
}

TEST(PartitionTest, LocalityAwarePartitionersCutTheRingBetweenCliques) {
  const Graph g = RingOfCliques(8, 10);  // 8 x 45 clique edges + 8 ring edges, each stored twice
  const std::vector<NodeId> train = AllNodes(g);
  const PartitionStats hash = EvaluatePartition(g, PartitionWith("hash", g, train, 4), 4, train);
  const PartitionStats metis = EvaluatePartition(g, PartitionWith("metis", g, train, 4), 4, train);
  const PartitionStats bgl = EvaluatePartition(g, PartitionWith("bgl", g, train, 4), 4, train);
  EXPECT_GT(hash.edge_cut, 0.5);  // a random partition cuts about 3/4 of the edges
  // Two cliques per partition: only ring edges may be cut, at best 4 of the 8.
  EXPECT_NEAR(metis.edge_cut, 4.0 / (8 * 45 + 8), 1e-12);
  // BGL's blocks come from random roots, so a clique may be split, but far less is cut than at
  // random, and no partition exceeds its share by more than the slack.
  EXPECT_LT(bgl.edge_cut, hash.edge_cut / 3);
  EXPECT_LE(metis.node_balance, 1.05);
  EXPECT_LE(bgl.node_balance, 1.05);
}

TEST(PartitionTest, StatsOnAHandPartition) {
  const Graph g = RingOfCliques(2, 3);  // 2 triangles joined by two ring edges
  std::vector<int32_t> part = {0, 0, 0, 1, 1, 1};
  const std::vector<NodeId> train = {0, 1, 3};
  const PartitionStats s = EvaluatePartition(g, part, 2, train);
  EXPECT_DOUBLE_EQ(s.edge_cut, 4.0 / 16);
  EXPECT_DOUBLE_EQ(s.node_balance, 1.0);
  EXPECT_DOUBLE_EQ(s.train_balance, 2.0 / 1.5);
}

TEST(PartitionTest, TooManyPartsIsAnError) {
  const Graph g = RingOfCliques(2, 3);
  PartitionerRegistry reg("partitioner");
  RegisterPartitioners(reg);
  for (const char* name : {"hash", "metis", "bgl"}) {
    auto out = reg.Create(name).value()->Partition(g, {}, {.parts = 7});
    EXPECT_FALSE(out.ok()) << name;
  }
}

}  // namespace
}  // namespace dlsim::gnn
