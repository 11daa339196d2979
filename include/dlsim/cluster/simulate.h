// The cluster module's entry point (the module template, docs/design/architecture.md): resolved
// options + catalogs -> one simulated cluster run over a job trace.
//
//   Result<cluster::ClusterResult> r = cluster::Simulate(options, catalogs, /*sink=*/nullptr);
//   r->summary.jct_s.mean;
//
// Errors: an unknown policy or placement (with a suggestion), an empty cluster or trace, a job
// whose speed entry is missing. A job that can never fit the cluster is not an error: it is
// reported (summary.never_fit, its record's reason) and never blocks the queue. `sink` (may be
// null) gets a track per node and a slice per job run (callers keep it for small clusters).
// Deterministic: same options, same result. Thread-safe for distinct arguments.
#ifndef DLSIM_CLUSTER_SIMULATE_H_
#define DLSIM_CLUSTER_SIMULATE_H_

#include <optional>
#include <string>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/options.h"
#include "dlsim/cluster/policy.h"
#include "dlsim/cluster/result.h"
#include "dlsim/core/result.h"
#include "dlsim/report/sink.h"

namespace dlsim::cluster {

Result<ClusterResult> Simulate(const ClusterOptions& options, const catalog::Catalogs& catalogs,
                               report::Sink* sink);

// Why `policy` under `options` would never finish, said of restart_overhead_s ("60 s is not shorter than
// ..."), or nullopt: a preemptive policy that re-ranks every round without a per-round allocator (LAS,
// Tiresias) can preempt a job each round, so a restart that costs a whole round or more starves every job.
// Simulate refuses such a run whatever set the policy (scenario, --policy, --compare, a sweep, Python); the
// scenario reader says it at the key.
std::optional<std::string> RestartStarvation(const ClusterOptions& options, const SchedulingPolicy& policy);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_SIMULATE_H_
