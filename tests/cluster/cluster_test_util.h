// Small builders for the cluster tests.
#ifndef DLSIM_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
#define DLSIM_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_

#include <map>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/simulate.h"

namespace dlsim::cluster::cluster_test {

inline JobSpec Job(int64_t id, double arrival_s, int gpus, double seconds) {
  JobSpec j;
  j.id = id;
  j.name = "j" + std::to_string(id);
  j.arrival = TimePoint::Start() + Seconds(arrival_s);
  j.gpus = gpus;
  j.work = seconds;
  return j;
}

inline ClusterSpec Nodes(int count, int gpus) {
  ClusterSpec c;
  c.AddNodes("n", "gpu", count, gpus, 0, 0, 0);
  return c;
}

// One 2-GPU training node and a pool of two 2-GPU nodes (1, 2) needing 2 servers until 100 s, none
// until 300 s, then 1; three 2-GPU jobs at 0 of 200, 150 and 400 s; a 10 s restore after a
// preemption (tests/cluster/capacity_test.cc and aryl_test.cc work out its JCTs).
inline ClusterOptions LoaningCase() {
  ClusterOptions o;
  o.cluster.AddNodes("train", "gpu", 1, 2, 0, 0, 0);
  o.cluster.AddNodes("pool", "gpu", 2, 2, 0, 0, 0);
  CapacityOptions cap;
  cap.pool = {1, 2};
  const TimePoint t0 = TimePoint::Start();
  cap.demand = {{t0, 2}, {t0 + Seconds(100), 0}, {t0 + Seconds(300), 1}};
  o.capacity = cap;
  o.jobs = {Job(1, 0, 2, 200), Job(2, 0, 2, 150), Job(3, 0, 2, 400)};
  o.restart_overhead = Seconds(10);
  return o;
}

// Runs and returns JCT by job id; fails the test on an error.
inline ClusterResult RunCluster(const ClusterOptions& o) {
  catalog::Catalogs none;
  Result<ClusterResult> r = Simulate(o, none, nullptr);
  if (!r.ok()) throw std::runtime_error(r.error().message);
  return *r;
}

inline std::map<int64_t, double> Jct(const ClusterResult& r) {
  std::map<int64_t, double> m;
  for (const JobRecord& j : r.jobs)
    if (j.completed) m[j.id] = j.jct_s;
  return m;
}

}  // namespace dlsim::cluster::cluster_test

#endif  // DLSIM_TESTS_CLUSTER_CLUSTER_TEST_UTIL_H_
