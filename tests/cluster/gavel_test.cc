// Gavel's max-min fairness: the LP on hand-computed instances, the round mechanism's capacity
// limits, end-to-end runs (determinism, a job that can run nowhere) on a two-type cluster.
#include "dlsim/cluster/policies/gavel.h"

#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"

namespace dlsim::cluster {
namespace {

// Types A and B with one GPU each. Job 0 runs 2 steps/s on A and 1 on B; job 1 runs 1 on both.
// Equal shares: job 0 (2 + 1) / 2 = 1.5, job 1 1; so c0 = (4/3, 2/3), c1 = (1, 1). Job 1 can reach
// at most 1 (its time sums to 1), so the optimal minimum is 1; the Pareto-efficient optimum then
// gives job 0 all of A (4/3) and job 1 all of B: X = [[1, 0], [0, 1]] (any x1A = a > 0 lowers job 0
// to 4/3 - 2a/3).
MaxMinProblem TwoByTwo() { return {{{2, 1}, {1, 1}}, {1, 1}, {1, 1}, {1, 1}}; }

TEST(GavelLp, TwoJobsTwoTypesHandComputed) {
  Result<std::vector<std::vector<double>>> x = SolveMaxMinFairness(TwoByTwo(), true);
  ASSERT_TRUE(x.ok()) << x.error().message;
  EXPECT_NEAR((*x)[0][0], 1, 1e-9);
  EXPECT_NEAR((*x)[0][1], 0, 1e-9);
  EXPECT_NEAR((*x)[1][0], 0, 1e-9);
  EXPECT_NEAR((*x)[1][1], 1, 1e-9);
}

TEST(GavelLp, AgnosticSpreadsEqualSharesOverTheTypes) {
  // Throughputs ignored: both jobs reach a full time share, spread 1:1 like the types' GPUs.
  Result<std::vector<std::vector<double>>> x = SolveMaxMinFairness(TwoByTwo(), false);
  ASSERT_TRUE(x.ok());
  for (const auto& row : *x)
    for (double v : row) EXPECT_NEAR(v, 0.5, 1e-9);
}

TEST(GavelLp, ScaleFactorsShareGpuTime) {
  // One type, 2 GPUs; a 1-GPU and a 2-GPU job: z <= X0, z <= 2 X1, X0 + 2 X1 <= 2 gives X0 = 1,
  // X1 = 0.5 (equal GPU-time). Phase two keeps each job within 1e-9 (relative) of the minimum.
  MaxMinProblem p{{{1}, {1}}, {1, 2}, {1, 1}, {2}};
  Result<std::vector<std::vector<double>>> x = SolveMaxMinFairness(p, true);
  ASSERT_TRUE(x.ok());
  EXPECT_NEAR((*x)[0][0], 1, 1e-9);
  EXPECT_NEAR((*x)[1][0], 0.5, 1e-9);
  // Weight 2 on the 2-GPU job: z <= X0, z <= X1 (2 / 2), X0 + 2 X1 <= 2: X0 = X1 = 2/3.
  p.weight = {1, 2};
  x = SolveMaxMinFairness(p, true);
  ASSERT_TRUE(x.ok());
  EXPECT_NEAR((*x)[0][0], 2.0 / 3, 1e-8);
  EXPECT_NEAR((*x)[1][0], 2.0 / 3, 1e-8);
}

TEST(GavelLp, AJobWithNoThroughputIsReported) {
  MaxMinProblem p = TwoByTwo();
  p.throughput[1] = {0, 0};
  Result<std::vector<std::vector<double>>> x = SolveMaxMinFairness(p, true);
  ASSERT_FALSE(x.ok());
  EXPECT_NE(x.error().message.find("job 1 has no throughput"), std::string::npos) << x.error().message;
  p.scale = {1};
  EXPECT_FALSE(SolveMaxMinFairness(p, true).ok());  // ragged input
}

TEST(GavelMechanism, NeverPacksMoreGpusThanATypeHas) {
  MaxMinProblem p;
  p.gpus = {5, 3, 8};
  for (int j = 0; j < 40; ++j) {
    p.throughput.push_back({1.0 + j % 3, (j % 4 == 1) ? 0.0 : 2.0, 0.5 + j % 5});
    p.scale.push_back(std::vector<int>{1, 2, 4, 4}[j % 4]);
    p.weight.push_back(j % 5 == 0 ? 5 : 1);
  }
  for (bool aware : {true, false}) {
    Result<std::vector<std::vector<double>>> x = SolveMaxMinFairness(p, aware);
    ASSERT_TRUE(x.ok()) << x.error().message;
    std::vector<std::vector<double>> received(40, std::vector<double>(3, 180));
    for (int j = 0; j < 40; ++j) received[j][j % 3] += 30 * j;
    std::vector<int64_t> used(3, 0);
    std::vector<int> seen(40, 0);
    for (const auto& [j, t] : PackRound(p, *x, received, {2, 0, 1})) {
      used[t] += p.scale[j];
      EXPECT_GT(p.throughput[j][t], 0) << "job " << j << " on a type it cannot run on";
      EXPECT_EQ(++seen[j], 1);
    }
    for (int t = 0; t < 3; ++t) EXPECT_LE(used[t], p.gpus[t]);
    EXPECT_EQ(used[0] + used[1] + used[2], 16);  // work-conserving: every GPU finds a job here
  }
}

// Steps per second by GPU type (fast, slow), times the GPUs.
class TwoTypeSpeed final : public SpeedModel {
 public:
  explicit TwoTypeSpeed(std::vector<double> per_type) : per_type_(std::move(per_type)) {}
  Result<double> StepsPerSecond(const PlacementShape& s, const ClusterSpec&) const override {
    double g = 0;
    for (int n : s.gpus_per_node) g += n;
    return per_type_[s.gpu_type] * g;
  }
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec&) const override { return {}; }

 private:
  std::vector<double> per_type_;
};

ClusterOptions TwoTypeCluster(const std::string& policy) {
  ClusterOptions o;
  o.cluster.AddNodes("fast", "v100", 1, 2, 0, 0, 0);
  o.cluster.AddNodes("slow", "k80", 1, 2, 0, 0, 0);
  auto book = std::make_shared<SpeedBook>();
  book->Add("conv", std::make_shared<TwoTypeSpeed>(std::vector<double>{4, 1}));
  book->Add("rec", std::make_shared<TwoTypeSpeed>(std::vector<double>{2, 2}));
  book->Add("none", std::make_shared<TwoTypeSpeed>(std::vector<double>{0, 0}));
  o.speeds = book;
  for (int i = 0; i < 12; ++i) {
    JobSpec j = cluster_test::Job(i, i * 200.0, 1 + (i % 4 == 3), 4000 + 500 * (i % 5));
    j.speed = i % 2 ? "rec" : "conv";
    o.jobs.push_back(j);
  }
  o.policy = policy;
  o.policy_params.round = Seconds(360);
  return o;
}

TEST(GavelPolicy, RunsEveryJobAndIsDeterministic) {
  for (const std::string policy : {"gavel", "gavel-agnostic"}) {
    ClusterResult a = cluster_test::RunCluster(TwoTypeCluster(policy)),
                  b = cluster_test::RunCluster(TwoTypeCluster(policy));
    EXPECT_EQ(a.summary.completed, 12) << policy;
    ASSERT_EQ(a.jobs.size(), b.jobs.size());
    for (size_t i = 0; i < a.jobs.size(); ++i) EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s) << policy;
  }
}

TEST(GavelPolicy, AwareIsFasterWhenJobsPreferDifferentTypes) {
  // conv jobs run 4x faster on v100, rec jobs the same on both: the aware policy sends conv to
  // v100 and rec to k80.
  const double aware = cluster_test::RunCluster(TwoTypeCluster("gavel")).summary.jct_s.mean;
  const double agnostic = cluster_test::RunCluster(TwoTypeCluster("gavel-agnostic")).summary.jct_s.mean;
  EXPECT_LT(aware, agnostic);
}

TEST(GavelPolicy, AJobThatRunsNowhereIsReportedNotFatal) {
  ClusterOptions o = TwoTypeCluster("gavel");
  o.jobs[3].speed = "none";
  ClusterResult r = cluster_test::RunCluster(o);
  EXPECT_EQ(r.summary.completed, 11);
  EXPECT_EQ(r.summary.never_fit, 1);
  EXPECT_FALSE(r.jobs[3].reason.empty());
}

}  // namespace
}  // namespace dlsim::cluster
