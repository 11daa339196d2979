// The incremental LAS pass (src/cluster/service_pass.cc) against the brute-force reference, the
// full pass that ranks every active job at every pass (ClusterOptions::full_passes), on random
// small traces: every job record and the summary must be the same, to the last bit.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cluster/cluster_test_util.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

using cluster_test::RunCluster;

// Every number of the result, printed exactly ({} is the shortest round-trip form).
std::string Describe(const ClusterResult& r) {
  const ClusterSummary& s = r.summary;
  std::string out =
      fmt::format("{} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", s.jobs, s.completed, s.never_fit,
                  s.jct_s.mean, s.jct_s.p50, s.jct_s.p99, s.queued_s.mean, s.makespan_s, s.utilisation,
                  s.rho_mean, s.rho_max, s.preemptions, s.passes, s.events);
  for (const JobRecord& j : r.jobs)
    out += fmt::format("{} {} {} {} {} {} {} {} {} {} {}\n", j.id, j.start_s, j.finish_s, j.jct_s, j.queued_s,
                       j.run_s, j.preemptions, j.nodes_spanned, j.completed, j.reason, j.gpus);
  for (const UtilSample& u : r.utilisation)
    out += fmt::format("{} {} {}\n", u.busy_gpus, u.running, u.waiting);
  return out;
}

// A random LAS case: a few nodes, up to 60 jobs whose arrivals and durations are whole seconds
// half of the time (ties of service, as in the Philly trace), GPU counts of 1-8 and shares.
ClusterOptions RandomCase(uint64_t seed) {
  Rng rng(seed);
  ClusterOptions o;
  const int per_node = std::vector<int>{1, 2, 4, 8}[rng.NextBelow(4)];
  o.cluster.AddNodes("n", "gpu", 1 + static_cast<int>(rng.NextBelow(4)), per_node, 0, 0, 0);
  const bool whole = rng.NextBelow(2) == 0;
  const int jobs = 5 + static_cast<int>(rng.NextBelow(56));
  for (int i = 0; i < jobs; ++i) {
    const double arrival = whole ? static_cast<double>(rng.NextBelow(400)) : rng.NextDouble() * 400;
    const double work = whole ? 1 + static_cast<double>(rng.NextBelow(300)) : 0.5 + rng.NextDouble() * 300;
    JobSpec j = cluster_test::Job(i + 1, arrival, std::vector<int>{1, 1, 1, 2, 4, 8}[rng.NextBelow(6)], work);
    if (j.gpus == 1 && rng.NextBelow(5) == 0) j.gpu_milli = 250 * (1 + static_cast<int>(rng.NextBelow(3)));
    o.jobs.push_back(j);
  }
  o.policy = "las";
  o.policy_params.round = Seconds(std::vector<double>{7, 60, 300}[rng.NextBelow(3)]);
  o.policy_params.rounds_only = rng.NextBelow(4) == 0;
  o.restart_overhead = Seconds(rng.NextBelow(2) == 0 ? 0 : 2);
  o.placement = std::vector<std::string>{"consolidated", "best-fit", "random", "spread"}[rng.NextBelow(4)];
  o.sample_interval = Seconds(50);
  return o;
}

TEST(ClusterEngine, IncrementalLasPassEqualsTheFullPass) {
  int64_t preemptions = 0;
  for (uint64_t seed = 1; seed <= 400; ++seed) {
    ClusterOptions o = RandomCase(seed);
    const std::string incremental = Describe(RunCluster(o));
    o.full_passes = true;
    ClusterResult full = RunCluster(o);
    preemptions += full.summary.preemptions;
    ASSERT_EQ(incremental, Describe(full)) << "seed " << seed;
  }
  EXPECT_GT(preemptions, 1000);  // the cases do exercise preemption
}

}  // namespace
}  // namespace dlsim::cluster
