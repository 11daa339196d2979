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
