// A sweep of cluster simulations: every combination of policies x load scales x seeds on one
// cluster and trace, run on a pool of threads or across MPI ranks (core/work_map.h), results in a
// fixed order (policy, then load, then seed) whatever the thread or rank count.
//
//   cluster::SweepSpec s{.policies = {"fifo", "las"}, .load_scales = {0.5, 1, 2}, .seeds = {1, 2}};
//   Result<std::vector<cluster::SweepRow>> rows = cluster::Sweep(options, catalogs, s, /*threads=*/0);
//
// A load scale divides every arrival time (2 = the same jobs arriving twice as fast). A seed is
// the simulation's seed (random placement) and, when `regenerate` is set, the seed of the jobs too
// (synthetic traces). Thread-safe for distinct arguments.
#ifndef DLSIM_CLUSTER_SWEEP_H_
#define DLSIM_CLUSTER_SWEEP_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/cluster/simulate.h"
#include "dlsim/core/progress.h"
#include "dlsim/core/work_map.h"

namespace dlsim::cluster {

struct SweepSpec {
  std::vector<std::string> policies;
  std::vector<double> load_scales = {1};
  std::vector<uint64_t> seeds = {1};
  // Draws the jobs for a seed (synthetic scenarios); unset: the options' jobs for every seed.
  std::function<Result<std::vector<JobSpec>>(uint64_t seed)> regenerate;
};

// The largest sweep: each point is a whole simulation.
inline constexpr size_t kMaxSweepPoints = 10000;

struct SweepRow {
  std::string policy;
  double load_scale = 1;
  uint64_t seed = 1;
  ClusterSummary summary;
};

// Errors: an empty or oversized sweep, an unknown policy (with a suggestion), a load scale that is
// not positive, any simulation's error (the first in sweep order). `progress` (may be empty)
// hears of every finished point, from the worker threads.
Result<std::vector<SweepRow>> Sweep(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                                    const SweepSpec& spec, int threads, const ProgressFn& progress = {});
// The same on `map` (this process's threads, or MPI ranks: every rank calls it with the same
// arguments and gets every row).
Result<std::vector<SweepRow>> Sweep(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                                    const SweepSpec& spec, WorkMap& map, const ProgressFn& progress = {});

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_SWEEP_H_
