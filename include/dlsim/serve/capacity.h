// Capacity search: the highest arrival rate per replica whose SLO attainment stays at or above
// a target (DistServe's planner search, on our simulator).
//
//   auto cap = serve::FindCapacity(options, *cost, schedulers, routers, {.target = 0.9});
//   double per_replica = cap->rate_per_replica;
//
// The rate is doubled from `start_rate` until attainment drops below the target, then bisected
// `bisections` times. Every probe runs the scenario's workload (same seed, same request count)
// with only the rate changed, so the search is deterministic. Thread-safe like Simulate().
#ifndef DLSIM_SERVE_CAPACITY_H_
#define DLSIM_SERVE_CAPACITY_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve {

struct CapacityProbe {
  double rate_per_replica = 0;
  double slo_attainment = 0;
};

struct CapacityOptions {
  double target = 0.9;       // SLO attainment to keep
  double start_rate = 0.25;  // requests/s per replica of the first probe
  int bisections = 10;
  int max_doublings = 24;
  // Called after each probe with its index (from 0) and result, in the order they run (may be empty): a
  // command's progress lines.
  std::function<void(int, const CapacityProbe&)> on_probe;
};

struct CapacityResult {
  double rate_per_replica = 0;  // highest probed rate meeting the target (0 when none does)
  bool met = false;             // a probed rate met the target
  // False when the target held at every doubling, up to start_rate x 2^(max_doublings - 1): the rate is
  // then a lower bound (the SLO is looser than any queueing of the workload's requests).
  bool bounded = true;
  // The run at rate_per_replica; when no rate met the target, the run at the lowest rate probed
  // (its latencies say how far the SLO is out of reach).
  ServeResult at_capacity;
  std::vector<CapacityProbe> probes;  // in the order they ran
  std::string reason;                 // when !met: the attainment and latencies at the lowest rate vs the SLO
};

// Error: as Simulate(); kInfeasible when the configuration cannot run at all.
Result<CapacityResult> FindCapacity(const ServeOptions& options, const IterationCostModel& cost,
                                    const SchedulerRegistry& schedulers, const RouterRegistry& routers,
                                    const CapacityOptions& c);

// Replicas that receive arrivals' share of the rate: replicas, or prefill + decode pools.
int ReplicaCount(const ServeOptions& options);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_CAPACITY_H_
