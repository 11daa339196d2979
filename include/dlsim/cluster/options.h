// Options of one cluster simulation: the machines, the jobs, the policy and placement, and the
// engine's knobs. Validated at the edge (io/cluster_scenario.h); plain values.
#ifndef DLSIM_CLUSTER_OPTIONS_H_
#define DLSIM_CLUSTER_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/cluster/capacity.h"
#include "dlsim/cluster/cluster_spec.h"
#include "dlsim/cluster/job.h"
#include "dlsim/cluster/policy.h"
#include "dlsim/cluster/speed.h"

namespace dlsim::cluster {

struct ClusterOptions {
  ClusterSpec cluster;
  std::vector<JobSpec> jobs;                // any order; the engine sorts by (arrival, id)
  std::shared_ptr<const SpeedBook> speeds;  // null: every job must be a duration job
  std::string policy = "fifo";
  PolicyParams policy_params;
  // A policy object from code (a library user's own, or a test's); when set, `policy` is only its
  // name in reports and the registry is not consulted.
  std::shared_ptr<const SchedulingPolicy> custom_policy;
  std::string placement = "consolidated";
  // Time a preempted job spends on its next start restoring its checkpoint: it holds its GPUs
  // and makes no progress (Gavel/Tiresias-style checkpoint-restart cost).
  Duration restart_overhead = Duration::Zero();
  Duration sample_interval = Seconds(3600);  // utilisation time series
  uint64_t seed = 1;                         // random placement
  // Jobs with index in [measure_from, measure_to) of the arrival order count in the summary
  // (Gavel's and Blox's measurement window); measure_to 0: to the end.
  int64_t measure_from = 0;
  int64_t measure_to = 0;
  bool keep_records = true;  // per-job records in the result (off for million-job benchmarks)
  // A lendable pool whose demand changes over time (capacity.h); nullopt: a fixed cluster.
  std::optional<CapacityOptions> capacity;
  // Testing: rank every active job at every preemptive pass, also where the incremental pass
  // applies (las on one GPU type); the same results, more slowly: the brute-force reference.
  bool full_passes = false;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_OPTIONS_H_
