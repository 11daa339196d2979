// GoldMiner (cluster/policies/goldminer.h) and the input-bound speed model
// (cluster/input_pipeline.h): a job runs at min(GPU rate, input rate); data workers on idle CPUs
// raise it; the marginal-gain split of idle cores equals brute force on small cases.
#include "dlsim/cluster/policies/goldminer.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>

#include "cluster/cluster_test_util.h"
#include "dlsim/cluster/input_classes.h"
#include "dlsim/cluster/input_pipeline.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

using cluster_test::Jct;
using cluster_test::Job;
using cluster_test::RunCluster;

// `count` nodes of 8 GPUs and 16 cores.
ClusterSpec CpuNodes(int count, double nic_bytes_per_s = 0) {
  ClusterSpec c;
  c.AddNodes("n", "gpu", count, 8, 16000, 0, 0);
  c.SetNicBandwidth(0, nic_bytes_per_s);
  return c;
}

JobSpec InputJob(int64_t id, double arrival_s, int gpus, double seconds, double core_s, double bytes = 0) {
  JobSpec j = Job(id, arrival_s, gpus, seconds);
  j.input_core_s = core_s;
  j.input_bytes = bytes;
  return j;
}

TEST(InputPipeline, RateIsTheLeastOfGpuAndCpu) {
  const ClusterSpec spec = CpuNodes(1);
  Allocation half;  // 4 of the node's 8 GPUs: half of its 16 cores
  for (int g = 0; g < 4; ++g) half.grants.push_back({0, static_cast<int16_t>(g), 1000});
  const InputShare share = InputShareOf(InputJob(1, 0, 4, 1, 2), half, spec);
  EXPECT_DOUBLE_EQ(share.local_cores, 8);
  // 2 core-s per unit of work: the CPUs feed 4 units/s, above the GPU rate of 1.
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 2), 1.0, share, 0), 1.0);
  // 16 core-s per unit: 8 cores feed 0.5 units/s.
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 16), 1.0, share, 0), 0.5);
  // Data workers add their cores: (8 + 4) / 16 = 0.75, and never more than the GPU rate.
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 16), 1.0, share, 4), 0.75);
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 16), 1.0, share, 100), 1.0);
  // No input model, or a node that does not track cores: the GPU rate.
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 0), 1.0, share, 0), 1.0);
  EXPECT_DOUBLE_EQ(InputBoundRate(InputJob(1, 0, 4, 1, 16), 1.0, InputShare{}, 0), 1.0);
}

TEST(InputPipeline, RemoteInputIsCappedByTheNicShare) {
  const ClusterSpec spec = CpuNodes(1, /*nic=*/800);
  Allocation half;
  for (int g = 0; g < 4; ++g) half.grants.push_back({0, static_cast<int16_t>(g), 1000});
  const JobSpec job = InputJob(1, 0, 4, 1, 16, /*bytes=*/1600);
  const InputShare share = InputShareOf(job, half, spec);
  EXPECT_DOUBLE_EQ(share.nic_bytes_per_s, 400);
  // Remote workers could add 8 / 16 = 0.5 units/s, but 400 B/s carry only 0.25 units/s.
  EXPECT_DOUBLE_EQ(InputBoundRate(job, 1.0, share, 8), 0.5 + 0.25);
}

ClusterOptions OneBoundJob(const std::string& policy) {
  ClusterOptions o;
  o.cluster = CpuNodes(2);
  // 4 GPUs of node 0 (8 local cores), 64 core-s per second of work: 0.125 units/s locally.
  o.jobs = {InputJob(1, 0, 4, 100, 64)};
  o.policy = policy;
  return o;
}

TEST(GoldMiner, BaselineRunsAtTheLocalCpuRate) {
  EXPECT_NEAR(Jct(RunCluster(OneBoundJob("fifo")))[1], 800, 1e-6);
}

TEST(GoldMiner, DataWorkersOnIdleCoresSpeedTheJobUp) {
  // Idle: the other 8 cores of node 0 and node 1's 16: (8 + 24) / 64 = 0.5 units/s.
  EXPECT_NEAR(Jct(RunCluster(OneBoundJob("goldminer")))[1], 200, 1e-6);
  // One data worker of 5 cores fits 4 times in 24 idle cores: (8 + 20) / 64.
  ClusterOptions o = OneBoundJob("goldminer");
  o.policy_params.own.Set("goldminer_worker_cores", 5.0);
  EXPECT_NEAR(Jct(RunCluster(o))[1], 100 / (28.0 / 64), 1e-6);
}

TEST(GoldMiner, WorkersAreReplannedWhenTheClusterChanges) {
  // A: 8 GPUs of node 0 (16 cores), 64 core-s per unit: 0.25 alone, 0.5 with node 1's 16 idle
  // cores. B (no input model) takes node 1 at t=100 for 50 s and its cores with it.
  // A: 50 units by t=100, 12.5 more by 150 at 0.25, the last 37.5 at 0.5: done at 225.
  ClusterOptions o;
  o.cluster = CpuNodes(2);
  o.jobs = {InputJob(1, 0, 8, 100, 64), Job(2, 100, 8, 50)};
  o.policy = "goldminer";
  auto jct = Jct(RunCluster(o));
  EXPECT_NEAR(jct[1], 225, 1e-6);
  EXPECT_NEAR(jct[2], 50, 1e-6);
  o.policy = "fifo";  // the baseline: 0.25 throughout
  EXPECT_NEAR(Jct(RunCluster(o))[1], 400, 1e-6);
}

// The best total busy GPUs over every split of whole workers (brute force).
double BruteForceBusy(const std::vector<DataWorkerDemand>& d, int workers, double w) {
  std::vector<double> cores(d.size(), 0);
  double best = 0;
  std::function<void(size_t, int)> go = [&](size_t i, int left) {
    if (i == d.size()) return void(best = std::max(best, BusyGpus(d, cores)));
    for (int k = 0; k <= left; ++k) {
      cores[i] = k * w;
      go(i + 1, left - k);
    }
    cores[i] = 0;
  };
  go(0, workers);
  return best;
}

TEST(GoldMiner, MarginalGainSplitMatchesBruteForce) {
  Rng rng = Rng(7).Stream("test/goldminer");
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<DataWorkerDemand> d;
    const int jobs = 1 + static_cast<int>(rng.NextBelow(4));
    for (int i = 0; i < jobs; ++i)
      d.push_back(
          {i, static_cast<double>(1 + rng.NextBelow(8)), SampleUniform(rng, 0.5, 2),
           SampleUniform(rng, 0.5, 8), SampleUniform(rng, 0, 4),
           rng.NextBelow(3) == 0 ? SampleUniform(rng, 0.1, 1) : std::numeric_limits<double>::infinity()});
    const double w = trial % 2 == 0 ? 1.0 : 1.5;
    const int workers = static_cast<int>(rng.NextBelow(13));
    const std::vector<double> greedy = GreedyDataWorkers(d, workers * w, w);
    double used = 0;
    for (double c : greedy) used += c;
    EXPECT_LE(used, workers * w + 1e-9);
    EXPECT_NEAR(BusyGpus(d, greedy), BruteForceBusy(d, workers, w), 1e-9) << "trial " << trial;
  }
}

TEST(GoldMiner, EqualSplitWaterFills) {
  // Needs: job 0 saturates with 2 cores, job 1 with 10; 8 idle cores: 2 and 6.
  std::vector<DataWorkerDemand> d = {{0, 1, 1, 4, 2, std::numeric_limits<double>::infinity()},
                                     {1, 1, 1, 10, 0, std::numeric_limits<double>::infinity()}};
  const std::vector<double> split = EqualDataWorkers(d, 8);
  EXPECT_DOUBLE_EQ(split[0], 2);
  EXPECT_DOUBLE_EQ(split[1], 6);
}

TEST(InputClasses, ParsesAndApplies) {
  const std::string csv =
      "class,gpu_samples_per_s,cpu_core_ms_per_sample,bytes_per_sample,share\n"
      "img,1000,8,150000,1\nnlp,200,0.5,1000,3\n";
  Result<std::vector<InputClass>> c = ParseInputClasses(csv, "t.csv");
  ASSERT_TRUE(c.ok()) << c.error().message;
  JobSpec j = Job(1, 0, 2, 10);
  ApplyInputClass(j, (*c)[0], 1);
  EXPECT_DOUBLE_EQ(j.input_core_s, 2 * 1000 * 0.008);  // 2 GPUs x 1,000 samples/s x 8 ms
  EXPECT_DOUBLE_EQ(j.input_bytes, 2 * 1000 * 150000.0);
  std::vector<JobSpec> jobs(4000, Job(1, 0, 1, 10));
  const std::vector<int> k = AssignInputClasses(jobs, *c, 3, 1);
  EXPECT_NEAR(std::count(k.begin(), k.end(), 1) / 4000.0, 0.75, 0.03);
  EXPECT_EQ(k, AssignInputClasses(jobs, *c, 3, 1));
  EXPECT_FALSE(FindInputClass(*c, "video").ok());
}

TEST(InputClasses, BadCellsNameFileLineAndRange) {
  Result<std::vector<InputClass>> c = ParseInputClasses(
      "class,gpu_samples_per_s,cpu_core_ms_per_sample,bytes_per_sample,share\nimg,0,8,1,1\n", "t.csv");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("t.csv:2: column 'gpu_samples_per_s'"), std::string::npos)
      << c.error().message;
  EXPECT_FALSE(ParseInputClasses("class,gpu_samples_per_s,cpu_core_ms_per_sample,bytes_per_sample,share\n"
                                 "a,1,1,1,0\n",
                                 "t.csv")
                   .ok());
}

}  // namespace
}  // namespace dlsim::cluster
