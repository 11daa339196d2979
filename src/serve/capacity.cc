#include "dlsim/serve/capacity.h"

namespace dlsim::serve {

int ReplicaCount(const ServeOptions& o) {
  return o.scheduler.name == "distserve" ? o.scheduler.prefill_replicas + o.scheduler.decode_replicas
                                         : o.hardware.replicas;
}

Result<CapacityResult> FindCapacity(const ServeOptions& options, const IterationCostModel& cost,
                                    const SchedulerRegistry& schedulers, const RouterRegistry& routers,
                                    const CapacityOptions& c) {
  CapacityResult out;
  const int replicas = ReplicaCount(options);
  ServeOptions probe = options;
  if (probe.workload.arrival == ArrivalKind::kTrace) probe.workload.arrival = ArrivalKind::kPoisson;
  auto run = [&](double per_replica) -> Result<ServeResult> {
    probe.workload.rate = per_replica * replicas;
    DLSIM_ASSIGN_OR_RETURN(ServeResult r, Simulate(probe, cost, schedulers, routers));
    if (!r.feasible) return Error{ErrorCode::kInfeasible, r.reason};
    out.probes.push_back({per_replica, r.metrics.slo_attainment});
    return r;
  };
  double lo = 0, hi = c.start_rate;
  ServeResult best;
  for (int i = 0; i < c.max_doublings; ++i) {
    DLSIM_ASSIGN_OR_RETURN(ServeResult r, run(hi));
    if (r.metrics.slo_attainment < c.target) break;
    lo = hi;
    best = std::move(r);
    hi *= 2;
  }
  for (int i = 0; i < c.bisections; ++i) {
    const double mid = lo == 0 ? hi / 2 : (lo + hi) / 2;
    DLSIM_ASSIGN_OR_RETURN(ServeResult r, run(mid));
    if (r.metrics.slo_attainment >= c.target) {
      lo = mid;
      best = std::move(r);
    } else {
      hi = mid;
    }
  }
  out.rate_per_replica = lo;
  out.at_capacity = std::move(best);
  return out;
}

}  // namespace dlsim::serve
