// Capacity loaning (cluster/capacity.h): demand curves from CSV and from a QPS trace, with
// located errors; the engine lending pool nodes, reclaiming them and preempting or shrinking the
// jobs on them, on hand-computed cases.
#include "dlsim/cluster/capacity.h"

#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Jct;
using cluster_test::Job;
using cluster_test::RunCluster;

TimePoint At(double s) { return TimePoint::Start() + Seconds(s); }

TEST(DemandCurve, ParsesAndShiftsToZero) {
  auto c = ParseDemandCurve("time_s,servers\n100,2\n160,3\n", "d.csv", 4);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_EQ(c->size(), 2u);
  EXPECT_EQ((*c)[0].at, At(0));
  EXPECT_EQ((*c)[1].at, At(60));
  EXPECT_EQ((*c)[1].servers, 3);
}

TEST(DemandCurve, BadCellsAreLocatedErrors) {
  auto over = ParseDemandCurve("time_s,servers\n0,2\n60,9\n", "d.csv", 4);
  ASSERT_FALSE(over.ok());
  EXPECT_NE(over.error().message.find("d.csv:3"), std::string::npos) << over.error().message;
  EXPECT_NE(over.error().message.find("servers"), std::string::npos);
  EXPECT_NE(over.error().message.find("0..4"), std::string::npos);
  auto back = ParseDemandCurve("time_s,servers\n0,2\n0,1\n", "d.csv", 4);
  ASSERT_FALSE(back.ok());
  EXPECT_NE(back.error().message.find("d.csv:3"), std::string::npos) << back.error().message;
  EXPECT_FALSE(ParseDemandCurve("time_s,servers\n", "d.csv", 4).ok());
  EXPECT_FALSE(ParseDemandCurve("time,servers\n0,1\n", "d.csv", 4).ok());
  auto neg = DemandFromQps("timestamp_anon,value\n0,-1\n", "q.csv", {}, 4);
  ASSERT_FALSE(neg.ok());
  EXPECT_NE(neg.error().message.find("q.csv:2"), std::string::npos) << neg.error().message;
}

TEST(DemandCurve, QpsBecomesServersPerBucket) {
  // Buckets of 60 s: 1.0 + 0.5 = 1.5 -> 2 servers; 2.5 -> 3; none -> 0; 0.2 -> 1.
  const char* text = "timestamp_anon,value\n1000020,1.0\n1000050,0.5\n1000080,2.5\n1000200,0.2\n";
  QpsOptions q;
  q.per_server_qps = 1;
  auto c = DemandFromQps(text, "q.csv", q, 10);
  ASSERT_TRUE(c.ok()) << c.error().message;
  std::vector<std::pair<int64_t, int>> got;  // (whole seconds, servers)
  for (const DemandStep& s : *c) got.push_back({s.at.ToNanos() / 1'000'000'000, s.servers});
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int>>{{0, 2}, {60, 3}, {120, 0}, {180, 1}}));
  // Buckets of 120 s (aligned to multiples of 120 s of the trace's clock) hold two samples per
  // container: 1.0 + 0.5 -> 0.75 QPS -> 1 server; 2.5 -> 1.25 -> 2; 0.2 -> 0.1 -> 1.
  q.bucket = Seconds(120);
  auto coarse = DemandFromQps(text, "q.csv", q, 10);
  ASSERT_TRUE(coarse.ok());
  got.clear();
  for (const DemandStep& s : *coarse) got.push_back({s.at.ToNanos() / 1'000'000'000, s.servers});
  EXPECT_EQ(got, (std::vector<std::pair<int64_t, int>>{{0, 1}, {120, 2}, {240, 1}}));
}

TEST(DemandCurve, RepeatsEveryPeriod) {
  CapacityOptions c;
  c.pool = {0, 1, 2};
  c.demand = {{At(0), 2}, {At(60), 3}};
  c.period = Seconds(100);
  EXPECT_EQ(DemandAt(c, At(150)), 2);
  EXPECT_EQ(DemandAt(c, At(170)), 3);
  EXPECT_EQ(NextDemandChange(c, At(150)), At(160));
  EXPECT_EQ(NextDemandChange(c, At(170)), At(200));
  EXPECT_EQ(MaxLendable(c), 1);
  c.period = Duration::Zero();
  EXPECT_EQ(NextDemandChange(c, At(70)), std::nullopt);
  EXPECT_EQ(MaxLendable(c), 0);  // it holds 3 for ever
}

// One 2-GPU training node and a pool of two 2-GPU nodes needing 2 servers until 100, none until
// 300, then 1. FIFO, three 2-GPU jobs at 0: j1 200 s on the training node; j2 150 s and j3 400 s
// start at 100 on the lent nodes (j2 on node 1, j3 on node 2). At 300 the pool takes back the node
// lent last (node 2): j3 is preempted with 200 s done and restarts on a free node after a 10 s
// restore: 300 + 10 + 200 = 510.
ClusterOptions Loaning() { return cluster_test::LoaningCase(); }

TEST(CapacityLoaning, LendsIdlePoolNodesAndReclaimsThem) {
  ClusterResult r = RunCluster(Loaning());
  auto jct = Jct(r);
  EXPECT_DOUBLE_EQ(jct[1], 200);
  EXPECT_DOUBLE_EQ(jct[2], 250);
  EXPECT_DOUBLE_EQ(jct[3], 510);
  EXPECT_EQ(r.summary.reclaimed_nodes, 1);
  EXPECT_EQ(r.summary.reclaim_preemptions, 1);
  EXPECT_EQ(r.summary.preemptions, 1);
  // Training could use 2 GPUs to 100, 6 to 300, 4 to 510; the pool's demand used 4, 0, then 2.
  EXPECT_DOUBLE_EQ(r.summary.available_gpu_s, 2 * 100 + 6 * 200 + 4 * 210);
  EXPECT_DOUBLE_EQ(r.summary.inference_gpu_s, 4 * 100 + 2 * 210);
  const double busy = 2 * 200 + 2 * 150 + 2 * (200 + 210);
  EXPECT_DOUBLE_EQ(r.summary.usage, (busy + 4 * 100 + 2 * 210) / (6 * 510.0));
}

TEST(CapacityLoaning, APreemptedJobLosesTheWorkSinceItsLastCheckpoint) {
  // Checkpoints every 150 s of run: j3 ran 100..300, so its checkpoint at 250 keeps 150 s and the
  // 50 s after it are lost: 250 s left, restarting at 300 + 10: done at 560.
  ClusterOptions o = Loaning();
  o.capacity->checkpoint_interval = Seconds(150);
  ClusterResult r = RunCluster(o);
  EXPECT_DOUBLE_EQ(Jct(r)[3], 560);
  EXPECT_DOUBLE_EQ(r.summary.reclaim_lost_gpu_s, 50 * 2);
}

TEST(CapacityLoaning, WithoutLoaningThePoolNeverRunsTraining) {
  ClusterOptions o = Loaning();
  o.capacity->loan = false;
  auto jct = Jct(RunCluster(o));
  EXPECT_DOUBLE_EQ(jct[1], 200);
  EXPECT_DOUBLE_EQ(jct[2], 350);
  EXPECT_DOUBLE_EQ(jct[3], 750);
}

TEST(CapacityLoaning, AnElasticJobShrinksInsteadOfStopping) {
  // A pool of two 2-GPU nodes only; j3 asks for 4 GPUs (elastic, min 2) and runs on both lent
  // nodes from 100; at 300 one node goes back and j3 keeps its 2 GPUs on the other.
  ClusterOptions o = Loaning();
  o.jobs = {Job(3, 0, 4, 400)};
  o.jobs[0].min_gpus = 2, o.jobs[0].max_gpus = 4;
  o.cluster = ClusterSpec();
  o.cluster.AddNodes("pool", "gpu", 2, 2, 0, 0, 0);
  o.capacity->pool = {0, 1};
  o.capacity->period = Seconds(1000);  // repeating: the pool lends both nodes again every cycle
  // 100..300: 200 s of work at rate 1 on 4 GPUs; at 300 a shrink to 2 GPUs, rate (2/4)^1 = 0.5,
  // after the 10 s rescale: 200 s of work left at 0.5/s = 400 s -> 300 + 10 + 400 = 710.
  ClusterResult r = RunCluster(o);
  EXPECT_DOUBLE_EQ(Jct(r)[3], 710);
  EXPECT_EQ(r.summary.reclaim_shrinks, 1);
  EXPECT_EQ(r.summary.reclaim_preemptions, 0);
}

TEST(CapacityLoaning, AJobOnlyTheNeverLentPartCouldHoldNeverFits) {
  // The pool lends at most 1 of its 2 nodes (its demand never drops below 1): a 6-GPU job can
  // never run and is reported, not waited for.
  ClusterOptions o = Loaning();
  o.capacity->demand = {{At(0), 1}};
  o.capacity->period = Seconds(1000);
  o.jobs = {Job(1, 0, 6, 10), Job(2, 0, 4, 10)};
  ClusterResult r = RunCluster(o);
  EXPECT_EQ(r.summary.never_fit, 1);
  EXPECT_EQ(r.summary.completed, 1);
}

TEST(CapacityLoaning, ACurveThatLetsNoJobProgressEndsWithAReason) {
  // The pool lends both nodes for 7 s in every 14; a 4-GPU job needs both. Its first run keeps the
  // 5 s up to its checkpoint, every later one spends the 7 s restoring (10 s restart): no progress
  // over a whole period, so loaning stops and the job is reported instead of looping for ever.
  ClusterOptions o = Loaning();
  o.cluster = ClusterSpec();
  o.cluster.AddNodes("pool", "gpu", 2, 2, 0, 0, 0);
  o.capacity->pool = {0, 1};
  o.capacity->demand = {{At(0), 0}, {At(7), 2}};
  o.capacity->period = Seconds(14);
  o.capacity->checkpoint_interval = Seconds(5);
  o.jobs = {Job(1, 0, 4, 100)};
  for (const char* policy : {"fifo", "aryl"}) {
    o.policy = policy;
    o.policy_params.round = Seconds(1);
    ClusterResult r = RunCluster(o);
    EXPECT_EQ(r.summary.completed, 0) << policy;
    ASSERT_EQ(r.jobs.size(), 1u);
    EXPECT_NE(r.jobs[0].reason.find("no job made progress"), std::string::npos) << r.jobs[0].reason;
  }
}

TEST(CapacityLoaning, FlappingDemandUnderEveryKindOfPolicyFinishesEveryJob) {
  // The pool's demand flips between all and nothing every 7 s; twelve jobs (some elastic) under a
  // static, a preemptive, a stepped and two allocation policies: every job completes, the engine
  // stops, and training never holds more than it could use.
  ClusterOptions o = Loaning();
  o.capacity->demand.clear();
  for (int i = 0; i < 40; ++i) o.capacity->demand.push_back({At(7.0 * i), i % 2 ? 0 : 2});
  o.capacity->period = Seconds(7.0 * 40);
  o.capacity->checkpoint_interval = Seconds(5);
  o.jobs.clear();
  for (int i = 0; i < 12; ++i) {
    o.jobs.push_back(Job(i, 3.0 * i, 1 + i % 3, 20 + 5 * i));
    if (i % 4 == 0) o.jobs.back().min_gpus = 1, o.jobs.back().max_gpus = 4;
  }
  for (const char* policy : {"fifo", "las", "tiresias", "aryl", "easyscale", "easyscale-fixed"}) {
    o.policy = policy;
    o.policy_params.round = Seconds(30);  // LAS: a round shorter than the restart never progresses
    ClusterResult r = RunCluster(o);
    EXPECT_EQ(r.summary.completed, 12) << policy;
    EXPECT_GT(r.summary.reclaimed_nodes, 0) << policy;
    double busy = 0;
    for (const JobRecord& j : r.jobs) busy += j.run_s * j.gpus;
    EXPECT_LE(r.summary.usage, 1.0 + 1e-9) << policy;
    EXPECT_GT(r.summary.available_gpu_s, 0) << policy;
    ClusterResult again = RunCluster(o);  // deterministic
    EXPECT_EQ(Jct(again), Jct(r)) << policy;
  }
}

}  // namespace
}  // namespace dlsim::cluster
