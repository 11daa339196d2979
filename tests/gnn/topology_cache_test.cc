// Topology caches: list sizes, AliGraph's importance in closed form on a hand-made directed graph,
// the budget and threshold rules, and the remote-candidate rule of a partition.
#include "dlsim/gnn/topology_cache.h"

#include <gtest/gtest.h>

namespace dlsim::gnn {
namespace {

// 0 -> 1, 0 -> 2, 1 -> 2, 3 -> 2, 2 -> 4: node 2 has in-degree 3 and out-degree 1.
Graph Directed() {
  EdgeList e{.num_nodes = 5, .src = {0, 0, 1, 3, 2}, .dst = {1, 2, 2, 2, 4}};
  return std::move(BuildGraph(e, {.undirected = false}).value());
}

std::unique_ptr<TopologyCache> Make(const std::string& name, const TopologyCacheContext& c) {
  TopologyCacheRegistry reg("topology-cache");
  RegisterTopologyCaches(reg);
  return std::move(reg.Create(name, c).value());
}

TEST(TopologyCacheTest, ListBytesAreTargetsPlusTheOffset) {
  const Graph g = Directed();
  EXPECT_EQ(ListBytes(g, 0), 4 * 2 + 8);
  EXPECT_EQ(ListBytes(g, 4), 8);
}

TEST(TopologyCacheTest, ImportanceInClosedForm) {
  const Graph g = Directed();
  const std::vector<double> k1 = Importance(g, 1);
  // in / out: node 0 0/2, node 1 1/1, node 2 3/1, node 3 0/1, node 4 1/0 -> its in-degree.
  EXPECT_EQ(k1, (std::vector<double>{0, 1, 3, 0, 1}));
  // Paths of length 1..2: in2(2) = 3 + in(0) + in(1) + in(3) = 4; out2(2) = 1 + out(4) = 1.
  // in2(4) = 1 + in(2) = 4, out2(4) = 0 -> 4. in2(1) = 1 + in(0) = 1; out2(1) = 1 + out(2) = 2.
  const std::vector<double> k2 = Importance(g, 2);
  EXPECT_DOUBLE_EQ(k2[2], 4.0);
  EXPECT_DOUBLE_EQ(k2[4], 4.0);
  EXPECT_DOUBLE_EQ(k2[1], 0.5);
}

TEST(TopologyCacheTest, ImportanceThresholdAndBudget) {
  const Graph g = Directed();
  // tau 1, no byte limit: nodes 1, 2, 4 (Imp 1, 3, 1).
  auto all = Make("importance", {.graph = g, .budget_bytes = -1, .tau = 1});
  EXPECT_TRUE(all->Holds(1) && all->Holds(2) && all->Holds(4));
  EXPECT_FALSE(all->Holds(0) || all->Holds(3));
  EXPECT_EQ(all->lists(), 3);
  EXPECT_EQ(all->bytes(), 12 + 12 + 8);
  // 20 bytes: node 2 (12 B) first, then node 1 (12 B) does not fit, node 4 (8 B) does.
  auto some = Make("importance", {.graph = g, .budget_bytes = 20, .tau = 1});
  EXPECT_TRUE(some->Holds(2) && some->Holds(4));
  EXPECT_FALSE(some->Holds(1));
  EXPECT_EQ(some->bytes(), 20);
}

TEST(TopologyCacheTest, APartitionCachesOnlyOtherMachinesLists) {
  const Graph g = Directed();
  const std::vector<int32_t> part = {0, 0, 0, 1, 1};
  auto c = Make("importance", {.graph = g, .budget_bytes = -1, .tau = 0.5, .part = part, .machine = 0});
  EXPECT_FALSE(c->Holds(2));  // machine 0's own
  EXPECT_TRUE(c->Holds(4));   // Imp 1, owned by machine 1
  EXPECT_EQ(c->lists(), 1);
}

TEST(TopologyCacheTest, FrequencyTakesTheMostReadsPerByte) {
  const Graph g = Directed();
  // reads / bytes: node 0 8/16, node 1 3/12, node 2 6/12, node 4 1/8.
  const std::vector<uint32_t> reads = {8, 3, 6, 0, 1};
  auto c = Make("frequency", {.graph = g, .budget_bytes = 28, .reads = reads});
  EXPECT_TRUE(c->Holds(0) && c->Holds(2));
  EXPECT_FALSE(c->Holds(1) || c->Holds(3) || c->Holds(4));
  EXPECT_EQ(c->bytes(), 28);
}

TEST(TopologyCacheTest, UndirectedImportanceDegeneratesToOne) {
  EdgeList e{.num_nodes = 4, .src = {0, 0, 1}, .dst = {1, 2, 3}};
  const Graph g = std::move(BuildGraph(e, {.undirected = true}).value());
  for (double imp : Importance(g, 1)) EXPECT_EQ(imp, 1);
}

TEST(TopologyCacheTest, UnknownNameSuggests) {
  TopologyCacheRegistry reg("topology-cache");
  RegisterTopologyCaches(reg);
  const Graph g = Directed();
  auto r = reg.Create("importanse", {.graph = g});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("importance"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace dlsim::gnn
