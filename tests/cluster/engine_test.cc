// The engine on hand-computable cases: exact JCTs under each policy, a preemption with its
// restart cost, a job that can never fit, utilisation, and determinism.
#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Jct;
using cluster_test::Job;
using cluster_test::Nodes;
using cluster_test::RunCluster;

// Three jobs on one 2-GPU node: j1 (1 GPU, 10 s) and j2 (2 GPUs, 5 s) at t=0, j3 (1 GPU, 2 s) at t=1.
ClusterOptions ThreeJobs(const std::string& policy) {
  ClusterOptions o;
  o.cluster = Nodes(1, 2);
  o.jobs = {Job(1, 0, 1, 10), Job(2, 0, 2, 5), Job(3, 1, 1, 2)};
  o.policy = policy;
  return o;
}

TEST(ClusterEngine, FifoWithoutBackfillBlocksBehindTheHead) {
  ClusterOptions o = ThreeJobs("fifo");
  o.policy_params.backfill = false;
  // j1 0-10; j2 (2 GPUs) waits for j1, runs 10-15; j3 waits behind j2, runs 15-17.
  auto jct = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 10);
  EXPECT_DOUBLE_EQ(jct[2], 15);
  EXPECT_DOUBLE_EQ(jct[3], 16);
}

TEST(ClusterEngine, FifoWithBackfillRunsTheSmallJobInTheGap) {
  // j3 takes the free GPU at t=1 and finishes at 3; j2 still starts at 10.
  auto jct = Jct(RunCluster(ThreeJobs("fifo")));
  EXPECT_DOUBLE_EQ(jct[1], 10);
  EXPECT_DOUBLE_EQ(jct[2], 15);
  EXPECT_DOUBLE_EQ(jct[3], 2);
}

TEST(ClusterEngine, SjfRunsTheShortestFirst) {
  // t=0: j2 (5 s) before j1 (10 s) and takes both GPUs, 0-5; t=5: j3 (2 s) 5-7 and j1 5-15.
  ClusterResult r = RunCluster(ThreeJobs("sjf"));
  auto jct = Jct(r);
  EXPECT_DOUBLE_EQ(jct[1], 15);
  EXPECT_DOUBLE_EQ(jct[2], 5);
  EXPECT_DOUBLE_EQ(jct[3], 6);
  EXPECT_DOUBLE_EQ(r.summary.jct_s.mean, (15 + 5 + 6) / 3.0);
  EXPECT_DOUBLE_EQ(r.summary.makespan_s, 15);
}

TEST(ClusterEngine, LasPreemptsTheJobWithMostService) {
  // t=0: j1 and j2 tie at 0 service, j1 (lower id) runs. t=1: j2 and j3 have 0 GPU-s, j1 has 1:
  // j2 (first by arrival) takes both GPUs and j1 is preempted; j2 runs 1-6. t=6: j3 6-8, j1 6-15.
  ClusterResult r = RunCluster(ThreeJobs("las"));
  auto jct = Jct(r);
  EXPECT_DOUBLE_EQ(jct[1], 15);
  EXPECT_DOUBLE_EQ(jct[2], 6);
  EXPECT_DOUBLE_EQ(jct[3], 7);
  EXPECT_EQ(r.summary.preemptions, 1);
  EXPECT_EQ(r.jobs[0].preemptions, 1);
}

TEST(ClusterEngine, RestartOverheadDelaysAPreemptedJob) {
  ClusterOptions o = ThreeJobs("las");
  o.restart_overhead = Seconds(2);
  // As above, but j1's restart at t=6 costs 2 s holding its GPU: 6 + 2 + 9 = 17.
  ClusterResult r = RunCluster(o);
  auto jct = Jct(r);
  EXPECT_DOUBLE_EQ(jct[1], 17);
  EXPECT_DOUBLE_EQ(r.jobs[0].run_s, 1 + 11);
  EXPECT_DOUBLE_EQ(r.jobs[0].queued_s, 5);
}

TEST(ClusterEngine, SrtfPreemptsForTheShorterRemainder) {
  // One GPU: j1 (10 s) at 0; j2 (3 s) at 2 preempts it (3 < 8 left): j2 2-5, j1 0-2 and 5-13.
  ClusterOptions o;
  o.cluster = Nodes(1, 1);
  o.jobs = {Job(1, 0, 1, 10), Job(2, 2, 1, 3)};
  o.policy = "srtf";
  auto jct = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 13);
  EXPECT_DOUBLE_EQ(jct[2], 3);
}

TEST(ClusterEngine, TiresiasDemotesAtTheQueueThreshold) {
  // One GPU, threshold 5 GPU-s. j1 (10 s) at 0; j2 (3 s) at 1 queues behind j1 (same queue, FIFO)
  // until j1 crosses 5 GPU-s at t=5 and drops a queue: j2 5-8, then j1 8-13.
  ClusterOptions o;
  o.cluster = Nodes(1, 1);
  o.jobs = {Job(1, 0, 1, 10), Job(2, 1, 1, 3)};
  o.policy = "tiresias";
  o.policy_params.own.Set("queue_thresholds", std::vector<double>{5});
  auto jct = Jct(RunCluster(o));
  EXPECT_NEAR(jct[1], 13, 1e-6);
  EXPECT_NEAR(jct[2], 7, 1e-6);
}

TEST(ClusterEngine, AJobThatCanNeverFitIsReportedAndBlocksNothing) {
  ClusterOptions o = ThreeJobs("fifo");
  o.policy_params.backfill = false;
  o.jobs.insert(o.jobs.begin(), Job(9, 0, 4, 1));  // 4 GPUs on a 2-GPU cluster, first in line
  ClusterResult r = RunCluster(o);
  EXPECT_EQ(r.summary.never_fit, 1);
  EXPECT_EQ(r.summary.completed, 3);
  const JobRecord& big = r.jobs[2];  // arrival order: (0 s, id 1), (0 s, id 2), (0 s, id 9), ...
  EXPECT_EQ(big.id, 9);
  EXPECT_FALSE(big.completed);
  EXPECT_NE(big.reason.find("needs 4 GPU(s)"), std::string::npos) << big.reason;
  EXPECT_DOUBLE_EQ(Jct(r)[1], 10);  // the others run as if it were not there
}

TEST(ClusterEngine, GpuTypeConstraintsPickTheRightNodes) {
  ClusterOptions o;
  o.cluster.AddNodes("a", "v100", 1, 2, 0, 0, 0);
  o.cluster.AddNodes("b", "k80", 1, 2, 0, 0, 0);
  JobSpec j = Job(1, 0, 2, 4);
  j.gpu_types = {*o.cluster.FindGpuType("k80")};
  JobSpec k = Job(2, 0, 2, 4);
  k.gpu_types = {*o.cluster.FindGpuType("k80")};
  o.jobs = {j, k};
  // Both want the k80 node: they run one after the other although the v100 node is idle.
  auto jct = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 4);
  EXPECT_DOUBLE_EQ(jct[2], 8);
}

TEST(ClusterEngine, UtilisationIsBusyGpuSecondsOverCapacity) {
  ClusterOptions o;
  o.cluster = Nodes(1, 2);
  o.jobs = {Job(1, 0, 1, 10)};
  o.sample_interval = Seconds(5);
  ClusterResult r = RunCluster(o);
  EXPECT_DOUBLE_EQ(r.summary.utilisation, 0.5);
  ASSERT_EQ(r.utilisation.size(), 2u);
  EXPECT_DOUBLE_EQ(r.utilisation[0].busy_gpus, 1);
  EXPECT_DOUBLE_EQ(r.summary.rho_mean, 1);  // alone: no queuing, no slowdown
}

// A span of 10^9 s at 1 s samples would be 10^9 samples (the JSON of such a run was 57 MB at 555k): the
// series is coarsened by merging pairs, so it stays bounded, still covers the whole span, and keeps the
// mean. One job on 1 of 2 GPUs for the first half: samples are 1 GPU busy, then 0.
TEST(ClusterEngine, UtilisationSeriesStaysBoundedOverAnySpan) {
  ClusterOptions o;
  o.cluster = Nodes(1, 2);
  o.jobs = {Job(1, 0, 1, 5e8), Job(2, 1e9 - 10, 1, 10)};
  o.sample_interval = Seconds(1);
  ClusterResult r = RunCluster(o);
  ASSERT_FALSE(r.utilisation.empty());
  EXPECT_LE(r.utilisation.size(), 20000u);
  EXPECT_GE(r.utilisation.size(), 10000u);
  EXPECT_GE(r.utilisation.back().t_s, 1e9 - 2 * 1e9 / 10000);  // covers the span
  EXPECT_DOUBLE_EQ(r.utilisation.front().busy_gpus, 1);
  EXPECT_DOUBLE_EQ(r.utilisation[r.utilisation.size() / 2 + 2].busy_gpus, 0);
  double mean = 0;
  for (const UtilSample& u : r.utilisation) mean += u.busy_gpus;
  EXPECT_NEAR(mean / static_cast<double>(r.utilisation.size()), 0.5, 0.01);
}

TEST(ClusterEngine, SharedGpusHoldSeveralJobs) {
  ClusterOptions o;
  o.cluster = Nodes(1, 1);
  JobSpec a = Job(1, 0, 1, 10), b = Job(2, 0, 1, 10), c = Job(3, 0, 1, 10);
  a.gpu_milli = b.gpu_milli = 500;
  c.gpu_milli = 600;
  o.jobs = {a, b, c};
  // a and b share the GPU 0-10; c (600 milli) waits for one of them.
  auto jct = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 10);
  EXPECT_DOUBLE_EQ(jct[2], 10);
  EXPECT_DOUBLE_EQ(jct[3], 20);
}

TEST(ClusterEngine, SameInputsSameResult) {
  ClusterOptions o;
  o.cluster = Nodes(4, 4);
  o.placement = "random";
  o.policy = "las";
  for (int i = 0; i < 200; ++i) o.jobs.push_back(Job(i, i * 7 % 97, 1 + i % 5, 50 + (i * 37) % 400));
  ClusterResult a = RunCluster(o), b = RunCluster(o);
  ASSERT_EQ(a.jobs.size(), b.jobs.size());
  for (size_t i = 0; i < a.jobs.size(); ++i) EXPECT_EQ(a.jobs[i].finish_s, b.jobs[i].finish_s);
  o.seed = 2;
  ClusterResult c = RunCluster(o);
  EXPECT_EQ(c.summary.completed, 200);
}

TEST(ClusterEngine, UnknownPolicySuggestsTheClosest) {
  ClusterOptions o = ThreeJobs("tiresas");
  catalog::Catalogs none;
  Result<ClusterResult> r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("tiresias"), std::string::npos) << r.error().message;
}

// Issue 35: a report window past the last job printed a JCT of 0, and a trace of 0-GPU jobs "completed" at 0%
// utilisation; both are errors in Simulate (every way in).
TEST(ClusterEngine, EmptyReportWindowAndGpuLessTracesAreErrors) {
  const catalog::Catalogs none;
  ClusterOptions o = ThreeJobs("fifo");
  o.measure_from = 3;
  auto r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("measure_from 3 is past the last of the 3 jobs"), std::string::npos)
      << r.error().message;
  o.measure_from = 2;
  EXPECT_TRUE(Simulate(o, none, nullptr).ok());
  o.measure_from = 0;
  for (JobSpec& j : o.jobs) j.gpus = 0;
  r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("no job asks for a GPU"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace dlsim::cluster

namespace dlsim::cluster {
namespace {

// An allocation policy that gives every active job, in arrival order, as many GPUs as are left,
// capped at twice its request (elastic): exercises the engine's allocation rounds.
class GreedyElastic final : public SchedulingPolicy, public GpuAllocator {
 public:
  bool Preemptive() const override { return true; }
  Duration Round() const override { return Seconds(10); }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override { return {0, 0}; }
  const GpuAllocator* allocator() const override { return this; }
  std::vector<AllocationTarget> Allocate(const AllocationView& v) const override {
    std::vector<AllocationTarget> out;
    int64_t left = v.cluster().total_gpus();
    for (int j : v.active()) {
      const int gpus = static_cast<int>(std::min<int64_t>(left, 2 * v.job(j).gpus));
      if (gpus > 0 && v.RateIf(j, 0, gpus) > 0) out.push_back({j, 0, gpus}), left -= gpus;
    }
    return out;
  }
};

// Steps jobs whose speed is proportional to their GPUs.
class Linear final : public SpeedModel {
 public:
  Result<double> StepsPerSecond(const PlacementShape& s, const ClusterSpec&) const override {
    double g = 0;
    for (int n : s.gpus_per_node) g += n;
    return g;
  }
  std::vector<ShapeSpeed> Evaluated(const ClusterSpec&) const override { return {}; }
};

TEST(ClusterEngine, AllocationPoliciesResizeRunningJobs) {
  ClusterOptions o;
  o.cluster = cluster_test::Nodes(1, 4);
  auto book = std::make_shared<SpeedBook>();
  book->Add("lin", std::make_shared<Linear>());
  o.speeds = book;
  JobSpec a = cluster_test::Job(1, 0, 1, 80), b = cluster_test::Job(2, 15, 1, 40);
  a.speed = b.speed = "lin";
  o.jobs = {a, b};
  o.custom_policy = std::make_shared<GreedyElastic>();
  o.policy = "greedy-elastic";
  // Round at 10: a gets 2 GPUs (2 steps/s). Round at 20: b (arrived at 15) gets 2 of the 2 left.
  // a: 10..40 at 2 steps/s = 60 steps by 40, 20 left; b: 20..40 at 2/s = 40 steps: done at 40.
  // Round at 40 is after both finish events at 40? a still needs 20 steps: at 40, a alone, 2 GPUs
  // (capped at twice its request): 10 more seconds -> 50.
  ClusterResult r = cluster_test::RunCluster(o);
  auto jct = cluster_test::Jct(r);
  EXPECT_DOUBLE_EQ(jct[2], 25);
  EXPECT_DOUBLE_EQ(jct[1], 50);
  EXPECT_EQ(r.summary.resizes, 0);
}

}  // namespace
}  // namespace dlsim::cluster

namespace dlsim::cluster {
namespace {

TEST(ClusterEngine, RoundsOnlyDecidesAtRounds) {
  // FIFO deciding every 10 s: j1 (arrives 0) starts at 10, finishes at 20; j2 (arrives 12) starts
  // at the round at 20 (the completion at 20 itself decides nothing... the round at 20 does).
  ClusterOptions o;
  o.cluster = cluster_test::Nodes(1, 1);
  o.jobs = {cluster_test::Job(1, 0, 1, 10), cluster_test::Job(2, 12, 1, 5)};
  o.policy_params.rounds_only = true;
  o.policy_params.round = Seconds(10);
  auto jct = cluster_test::Jct(cluster_test::RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 20);
  EXPECT_DOUBLE_EQ(jct[2], 20 + 5 - 12);
}

}  // namespace
}  // namespace dlsim::cluster

namespace dlsim::cluster {
namespace {

// Issue 35: a restart as long as LAS's round starves every job; Simulate refuses it whatever set the policy
// (a flag, --compare, a sweep and Python all reach Simulate), where it used to run forever.
TEST(ClusterEngine, RestartAsLongAsTheRoundIsRefusedNotRunForever) {
  ClusterOptions o = ThreeJobs("las");
  o.policy_params.round = Seconds(5);
  o.restart_overhead = Seconds(5);
  const catalog::Catalogs none;
  auto r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("would never progress"), std::string::npos) << r.error().message;
  o.policy = "fifo";  // not preemptive: the same restart cost is fine
  EXPECT_TRUE(Simulate(o, none, nullptr).ok());
}

// Issue 35: two jobs with one id were both kept (records and reports key on the id); now an error naming it.
TEST(ClusterEngine, DuplicateJobIdsAreAnError) {
  ClusterOptions o = ThreeJobs("fifo");
  o.jobs[2].id = o.jobs[0].id;
  const catalog::Catalogs none;
  auto r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("job id " + std::to_string(o.jobs[0].id) + " appears more than once"),
            std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace dlsim::cluster
