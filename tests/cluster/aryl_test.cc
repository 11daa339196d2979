// Aryl's mechanisms: the multiple-choice knapsack against brute force, the least-preemption-cost
// reclaim on hand-made cases, and the policy end to end (loaning, reclaim, extra workers).
#include "dlsim/cluster/policies/aryl.h"

#include <gtest/gtest.h>

#include <functional>

#include "cluster/cluster_test_util.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Jct;
using cluster_test::Job;
using cluster_test::RunCluster;

double Value(const std::vector<std::vector<double>>& v, const std::vector<int>& k) {
  double s = 0;
  for (size_t j = 0; j < v.size(); ++j) s += k[j] == 0 ? 0 : v[j][k[j]];
  return s;
}

TEST(ArylKnapsack, MatchesBruteForceOnSmallInstances) {
  Rng rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int jobs = 1 + static_cast<int>(rng.NextBelow(4));
    const int cap = static_cast<int>(rng.NextBelow(8));
    std::vector<std::vector<double>> v(jobs);
    for (auto& row : v) {
      row.push_back(0);
      const int k = static_cast<int>(rng.NextBelow(5));
      for (int i = 1; i <= k; ++i) row.push_back(std::floor(rng.NextDouble() * 100) - 10);  // some negative
    }
    double best = -1e18;
    std::vector<int> k(jobs, 0);
    std::function<void(int, int)> rec = [&](int j, int left) {
      if (j == jobs) return void(best = std::max(best, Value(v, k)));
      for (int c = 0; c < static_cast<int>(v[j].size()) && c <= left; ++c) k[j] = c, rec(j + 1, left - c);
      k[j] = 0;
    };
    rec(0, cap);
    const std::vector<int> got = SolveMultipleChoiceKnapsack(v, cap);
    int used = 0;
    for (int g : got) used += g;
    EXPECT_LE(used, cap);
    EXPECT_DOUBLE_EQ(Value(v, got), best) << "trial " << trial;
  }
}

TEST(ArylKnapsack, GivesTheGpusWhereTheJctFallsMost) {
  // Job 0 gains 100, 150, 160 s from 1..3 extra GPUs; job 1 gains 90, 180. One GPU: job 0 (100 >
  // 90); two: one each (190 > 180 > 150); three: 1 + 2 (280 > 240 > 160).
  EXPECT_EQ(SolveMultipleChoiceKnapsack({{0, 100, 150, 160}, {0, 90, 180}}, 1), (std::vector<int>{1, 0}));
  EXPECT_EQ(SolveMultipleChoiceKnapsack({{0, 100, 150, 160}, {0, 90, 180}}, 2), (std::vector<int>{1, 1}));
  EXPECT_EQ(SolveMultipleChoiceKnapsack({{0, 100, 150, 160}, {0, 90, 180}}, 3), (std::vector<int>{1, 2}));
}

TEST(ArylReclaim, TakesTheNodeWithTheLeastPreemptionCost) {
  // Node 10: a rigid job (1). Node 11: 2 GPUs of an elastic job (2) holding 6 with min 4: it
  // shrinks, costing no preemption. Node 12: two rigid jobs (3, 4).
  std::vector<LentNode> lent = {{10, {{1, 4}}}, {11, {{2, 2}}}, {12, {{3, 2}, {4, 2}}}};
  std::map<int, ReclaimJob> jobs = {
      {1, {4, 4, false}}, {2, {6, 4, true}}, {3, {2, 2, false}}, {4, {2, 2, false}}};
  EXPECT_EQ(LeastCostReclaim(lent, jobs, 1), (std::vector<int>{11}));
  EXPECT_EQ(LeastCostReclaim(lent, jobs, 2), (std::vector<int>{11, 10}));
  EXPECT_EQ(LeastCostReclaim(lent, jobs, 3), (std::vector<int>{11, 10, 12}));
}

TEST(ArylReclaim, RecountsAfterEachPick) {
  // An elastic job (holding 4, min 2) with 2 GPUs on each of nodes 20 and 21, and a rigid job
  // alone on node 22. The first pick shrinks the elastic job (cost 0); after it the elastic job
  // cannot shrink again, so node 21 now costs one preemption, as node 22 does: the tie goes to
  // the fewest GPUs in use, then the lower id (21).
  std::vector<LentNode> lent = {{20, {{1, 2}}}, {21, {{1, 2}}}, {22, {{2, 4}}}};
  std::map<int, ReclaimJob> jobs = {{1, {4, 2, true}}, {2, {4, 4, false}}};
  EXPECT_EQ(LeastCostReclaim(lent, jobs, 2), (std::vector<int>{20, 21}));
  // An idle node costs nothing and goes first.
  lent.push_back({23, {}});
  EXPECT_EQ(LeastCostReclaim(lent, jobs, 1), (std::vector<int>{23}));
}

// The engine case of capacity_test.cc under Aryl (10 s rounds): at 300 the pool takes one of the
// two lent nodes back. j2 has finished by then (its node is idle), so least-cost reclaim returns
// that node and preempts nobody; the default rule (last lent) preempts j3.
ClusterOptions Loaning(const std::string& reclaim) {
  ClusterOptions o = cluster_test::LoaningCase();
  o.policy = "aryl";
  o.policy_params.round = Seconds(10);
  o.policy_params.own.Set("reclaim", std::string(reclaim));
  return o;
}

TEST(ArylPolicy, ReclaimsTheIdleLentNode) {
  ClusterResult r = RunCluster(Loaning("least-cost"));
  EXPECT_EQ(r.summary.reclaimed_nodes, 1);
  EXPECT_EQ(r.summary.reclaim_preemptions, 0);
  auto jct = Jct(r);
  EXPECT_DOUBLE_EQ(jct[1], 210);  // the first round is at 10
  EXPECT_DOUBLE_EQ(jct[2], 250);  // lent at 100, a round at once
  EXPECT_DOUBLE_EQ(jct[3], 500);
}

TEST(ArylPolicy, ElasticJobsTakeTheIdleGpusAsExtraWorkers) {
  // One 4-GPU node, one elastic 1-GPU job (max 4, linear scaling) of 400 s: from the first round
  // (10) it runs on 4 GPUs at 4x: done at 110. Without elastic scaling: at 410.
  ClusterOptions o;
  o.cluster.AddNodes("n", "gpu", 1, 4, 0, 0, 0);
  o.jobs = {Job(1, 0, 1, 400)};
  o.jobs[0].min_gpus = 1, o.jobs[0].max_gpus = 4, o.jobs[0].scaling = 1;
  o.policy = "aryl";
  o.policy_params.round = Seconds(10);
  EXPECT_DOUBLE_EQ(Jct(RunCluster(o))[1], 110);
  o.policy_params.own.Set("elastic", false);
  EXPECT_DOUBLE_EQ(Jct(RunCluster(o))[1], 410);
}

TEST(ArylPolicy, ExtraWorkersMakeRoomForQueuedBaseDemands) {
  // j1 elastic (1..4 GPUs) takes all 4 GPUs at 10; j2 (rigid, 2 GPUs) arrives at 15: at the round
  // at 20 j1 falls back to base + what is left (2 GPUs) and j2 starts.
  ClusterOptions o;
  o.cluster.AddNodes("n", "gpu", 1, 4, 0, 0, 0);
  o.jobs = {Job(1, 0, 1, 400), Job(2, 15, 2, 30)};
  o.jobs[0].min_gpus = 1, o.jobs[0].max_gpus = 4, o.jobs[0].scaling = 1;
  o.policy = "aryl";
  o.policy_params.round = Seconds(10);
  ClusterResult r = RunCluster(o);
  EXPECT_DOUBLE_EQ(Jct(r)[2], 20 + 30 - 15);
  EXPECT_GE(r.summary.resizes, 1);
}

}  // namespace
}  // namespace dlsim::cluster
