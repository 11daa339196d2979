// Placement policies on a small, partly used cluster.
#include "dlsim/cluster/placement.h"

#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Job;

// Three 4-GPU nodes; node 1 has 2 GPUs busy.
struct PartlyUsed : ::testing::Test {
  PartlyUsed() : spec(cluster_test::Nodes(3, 4)), state(spec) {
    Allocation busy{{{1, 0, 1000}, {1, 1, 1000}}};
    state.Allocate(Job(0, 0, 2, 1), busy);
  }
  Allocation Place(const std::string& policy, int gpus) {
    Rng rng(7);
    auto p = BuiltinPlacements().Create(policy).value();
    std::optional<Allocation> a = p->Place(state, Job(1, 0, gpus, 1), rng);
    EXPECT_TRUE(a.has_value());
    return a.value_or(Allocation{});
  }
  std::vector<int> PerNode(const Allocation& a) {
    std::vector<int> v(3, 0);
    for (const GpuGrant& g : a.grants) ++v[g.node];
    return v;
  }
  ClusterSpec spec;
  ClusterState state;
};

TEST_F(PartlyUsed, ConsolidatedPicksTheBestFittingSingleNode) {
  EXPECT_EQ(PerNode(Place("consolidated", 2)), (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(PerNode(Place("consolidated", 4)), (std::vector<int>{4, 0, 0}));
  EXPECT_EQ(PerNode(Place("consolidated", 6)), (std::vector<int>{4, 0, 2}));  // the emptiest nodes
  EXPECT_EQ(Place("consolidated", 6).NodesSpanned(), 2);
}

TEST_F(PartlyUsed, FirstFitTakesNodesInOrder) {
  EXPECT_EQ(PerNode(Place("first-fit", 6)), (std::vector<int>{4, 2, 0}));
}

TEST_F(PartlyUsed, BestFitFillsTheFullestNodeFirst) {
  EXPECT_EQ(PerNode(Place("best-fit", 3)), (std::vector<int>{3, 0, 0}));
  EXPECT_EQ(PerNode(Place("best-fit", 5)), (std::vector<int>{3, 2, 0}));  // the partly used node first
}

TEST_F(PartlyUsed, SpreadUsesOneGpuPerNode) {
  EXPECT_EQ(PerNode(Place("spread", 3)), (std::vector<int>{1, 1, 1}));
  EXPECT_EQ(Place("spread", 3).NodesSpanned(), 3);
}

TEST_F(PartlyUsed, RandomIsSeededAndTakesOnlyFreeGpus) {
  Allocation a = Place("random", 10);
  EXPECT_EQ(a.grants.size(), 10u);
  for (const GpuGrant& g : a.grants) EXPECT_EQ(state.free_milli(g.node, g.gpu), 1000);
  EXPECT_EQ(PerNode(a), (std::vector<int>{4, 2, 4}));                   // all 10 free GPUs
  EXPECT_EQ(PerNode(Place("random", 3)), PerNode(Place("random", 3)));  // same seed, same draw
}

TEST_F(PartlyUsed, NothingFitsWhenTooFewAreFree) {
  Rng rng(1);
  for (const std::string& name : BuiltinPlacements().Names())
    EXPECT_FALSE(BuiltinPlacements().Create(name).value()->Place(state, Job(1, 0, 11, 1), rng)) << name;
}

TEST_F(PartlyUsed, ReleaseRestoresTheState) {
  Allocation a = Place("consolidated", 4);
  state.Allocate(Job(1, 0, 4, 1), a);
  EXPECT_EQ(state.free_whole(0), 0);
  EXPECT_EQ(state.busy_milli(), 6000);
  state.Release(Job(1, 0, 4, 1), a);
  EXPECT_EQ(state.free_whole(0), 4);
  EXPECT_EQ(state.free_whole_of_type(0), 10);
}

}  // namespace
}  // namespace dlsim::cluster
