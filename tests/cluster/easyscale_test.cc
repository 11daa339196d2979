// EasyScale's mechanisms: the intra-job assignment of EasyScaleThreads to mixed GPUs balances the
// step time (checked against brute force), and the policies end to end: a job spans GPU types,
// keeps only the GPUs that speed it up, and the fixed baseline waits for a homogeneous gang.
#include "dlsim/cluster/policies/easyscale.h"

#include <gtest/gtest.h>

#include <functional>

#include "cluster/cluster_test_util.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Jct;
using cluster_test::Job;
using cluster_test::RunCluster;

double BruteForceStep(int threads, const std::vector<double>& t, double s) {
  double best = 1e18;
  std::vector<int> n(t.size(), 0);
  std::function<void(size_t, int)> rec = [&](size_t i, int left) {
    if (i + 1 == t.size()) {
      n[i] = left;
      best = std::min(best, StepTime(n, t, s));
      return;
    }
    for (int c = 0; c <= left; ++c) n[i] = c, rec(i + 1, left - c);
  };
  rec(0, threads);
  return best;
}

TEST(EasyScaleThreads, AssignmentMinimisesTheStepTime) {
  Rng rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const int gpus = 1 + static_cast<int>(rng.NextBelow(4));
    const int threads = 1 + static_cast<int>(rng.NextBelow(9));
    std::vector<double> t;
    for (int g = 0; g < gpus; ++g) t.push_back(0.1 + rng.NextDouble());
    const double s = trial % 2 ? 0.05 : 0;
    const std::vector<int> n = AssignThreads(threads, t, s);
    int total = 0;
    for (int c : n) total += c;
    EXPECT_EQ(total, threads);
    EXPECT_NEAR(StepTime(n, t, s), BruteForceStep(threads, t, s), 1e-12) << "trial " << trial;
  }
}

TEST(EasyScaleThreads, FastGpusGetMoreThreadsAndTheStepTimeEvensOut) {
  // 8 ESTs on two V100-like GPUs (0.1 s per mini-batch) and two K80-like GPUs (0.3 s): 3+3 on the
  // fast ones (0.3 s) and 1+1 on the slow ones (0.3 s): every GPU finishes the step together.
  const std::vector<double> t = {0.1, 0.1, 0.3, 0.3};
  EXPECT_EQ(AssignThreads(8, t, 0), (std::vector<int>{3, 3, 1, 1}));
  EXPECT_DOUBLE_EQ(StepTime({3, 3, 1, 1}, t, 0), 0.3);
  // With a 0.05 s switch per extra EST the assignment is still the balanced optimum.
  EXPECT_NEAR(StepTime(AssignThreads(8, t, 0.05), t, 0.05), BruteForceStep(8, t, 0.05), 1e-12);
}

// Per-type speeds: `fast` 2 steps/s per GPU, `slow` 1 step/s per GPU (one GPU's rate; the test
// model ignores the count, as EasyScale only asks for one GPU's rate).
class PerType final : public SpeedModel {
 public:
  Result<double> StepsPerSecond(const PlacementShape& s, const ClusterSpec& spec) const override {
    return spec.gpu_types()[s.gpu_type] == "fast" ? 2.0 : 1.0;
  }
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec&) const override { return {}; }
};

ClusterOptions Mixed(const std::string& policy) {
  ClusterOptions o;
  o.cluster.AddNodes("f", "fast", 1, 2, 0, 0, 0);
  o.cluster.AddNodes("s", "slow", 1, 4, 0, 0, 0);
  auto book = std::make_shared<SpeedBook>();
  book->Add("m", std::make_shared<PerType>());
  o.speeds = book;
  o.policy = policy;
  o.policy_params.round = Seconds(10);
  o.policy_params.own.Set("switch_s", 0.0);
  return o;
}

TEST(EasyScalePolicy, AJobSpansGpuTypesAndReturnsGpusThatDoNotHelp) {
  // 4 ESTs, 100 steps (worker steps). EasyScale hands out both fast GPUs (0.5 s per EST; 2 ESTs
  // each: 1 s a step of 4 mini-batches, 4 steps/s); slow GPUs (1 s per EST) cannot bring the step
  // below 1 s, so none is taken. 100 steps at 4/s from the round at 10: done at 35, on 2 of 6 GPUs.
  ClusterOptions o = Mixed("easyscale");
  o.jobs = {Job(1, 0, 4, 100)};
  o.jobs[0].speed = "m";
  ClusterResult r = RunCluster(o);
  EXPECT_DOUBLE_EQ(Jct(r)[1], 35);
  EXPECT_NEAR(r.summary.utilisation, 2.0 * 25 / (6 * 35), 1e-9);
}

TEST(EasyScalePolicy, TheFixedBaselineNeedsAHomogeneousGang) {
  // The same job under easyscale-fixed: 4 GPUs of one type: only the 4 slow ones, 1 EST each
  // (1 s a step, 4 steps/s): done at 35.
  ClusterOptions o = Mixed("easyscale-fixed");
  o.jobs = {Job(1, 0, 4, 100)};
  o.jobs[0].speed = "m";
  EXPECT_DOUBLE_EQ(Jct(RunCluster(o))[1], 35);
  // Two such jobs: the second waits for the first (the 2 fast GPUs cannot hold 4 ESTs) and starts
  // at the round at 40: done at 65. Under easyscale both run at once (2 fast / 4 slow GPUs).
  o.jobs.push_back(o.jobs[0]);
  o.jobs[1].id = 2;
  auto fixed = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(fixed[2], 65);
  ClusterOptions e = Mixed("easyscale");
  e.jobs = o.jobs;
  auto elastic = Jct(RunCluster(e));
  EXPECT_DOUBLE_EQ(elastic[1], 35);
  EXPECT_DOUBLE_EQ(elastic[2], 35);
}

TEST(EasyScalePolicy, HomogeneousAblationKeepsOneType) {
  // On 1 fast and 4 slow GPUs, easyscale-homogeneous gives the job the fast GPU (the largest gain
  // per GPU) and then only fast ones: none is left, 4 ESTs on it take 2 s a step (2 steps/s):
  // 10 + 50. easyscale adds two slow GPUs (1 s a step: 3 ESTs... 2 on the fast, 1 on each slow).
  ClusterOptions o = Mixed("easyscale-homogeneous");
  o.cluster = ClusterSpec();
  o.cluster.AddNodes("f", "fast", 1, 1, 0, 0, 0);
  o.cluster.AddNodes("s", "slow", 1, 4, 0, 0, 0);
  o.jobs = {Job(1, 0, 4, 100)};
  o.jobs[0].speed = "m";
  const double homo = Jct(RunCluster(o))[1];
  o.policy = "easyscale";
  const double hetero = Jct(RunCluster(o))[1];
  EXPECT_DOUBLE_EQ(homo, 10 + 50);
  EXPECT_DOUBLE_EQ(hetero, 10 + 25);
}

}  // namespace
}  // namespace dlsim::cluster
