#include "dlsim/serve/capacity.h"

#include <fmt/format.h>

#include "dlsim/report/format.h"

namespace dlsim::serve {
namespace {

// Why no rate met `target`: `lowest` is the run at the lowest rate probed.
std::string NoCapacityReason(const ServeResult& lowest, double rate, const SloOptions& slo, double target) {
  const ServeMetrics& m = lowest.metrics;
  const auto d = [](double s) { return report::FormatDuration(Seconds(s)); };
  return fmt::format(
      "no rate meets SLO attainment >= {}: even at {:.3g} req/s per replica it is {} (TTFT p50 {} against "
      "{}, TPOT p50 {} against {}): loosen the SLO (slo.ttft_s, slo.tpot_s) or the target",
      report::FormatPercent(target), rate, report::FormatPercent(m.slo_attainment), d(m.ttft_s.p50),
      d(slo.ttft_s), d(m.tpot_s.p50), d(slo.tpot_s));
}

}  // namespace

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
  ServeResult best, last;
  // Runs a probe at `per_replica`; true when it meets the target (its run kept in `best`, else `last`).
  auto meets = [&](double per_replica) -> Result<bool> {
    probe.workload.rate = per_replica * replicas;
    DLSIM_ASSIGN_OR_RETURN(ServeResult r, Simulate(probe, cost, schedulers, routers));
    if (!r.feasible) return Error{ErrorCode::kInfeasible, r.reason};
    out.probes.push_back({per_replica, r.metrics.slo_attainment});
    if (c.on_probe) c.on_probe(static_cast<int>(out.probes.size()) - 1, out.probes.back());
    const bool ok = r.metrics.slo_attainment >= c.target;
    (ok ? best : last) = std::move(r);
    out.met = out.met || ok;
    return ok;
  };
  double lo = 0, hi = c.start_rate;
  out.bounded = false;
  for (int i = 0; i < c.max_doublings && !out.bounded; ++i) {
    DLSIM_ASSIGN_OR_RETURN(bool ok, meets(hi));
    out.bounded = !ok;
    if (ok) {
      lo = hi;
      hi *= 2;
    }
  }
  for (int i = 0; i < c.bisections && out.bounded; ++i) {  // unbounded: no failing rate to bisect to
    const double mid = lo == 0 ? hi / 2 : (lo + hi) / 2;
    DLSIM_ASSIGN_OR_RETURN(bool ok, meets(mid));
    (ok ? lo : hi) = mid;
  }
  out.rate_per_replica = lo;
  out.at_capacity = std::move(out.met ? best : last);  // when none met, the lowest rate probed ran last
  if (!out.met && !out.probes.empty())
    out.reason = NoCapacityReason(out.at_capacity, out.probes.back().rate_per_replica, options.slo, c.target);
  return out;
}

}  // namespace dlsim::serve
