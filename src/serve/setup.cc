#include "dlsim/serve/setup.h"

#include <fmt/format.h>

#include "dlsim/report/format.h"
#include "dlsim/report/table.h"

namespace dlsim::serve {

Result<std::unique_ptr<ServeEnvironment>> MakeServeEnvironment(const cost::ComputeCalibration& compute,
                                                               const net::NetworkCalibration& network) {
  auto env = std::make_unique<ServeEnvironment>();
  env->compute = compute;
  RegisterSchedulers(env->schedulers);
  RegisterRouters(env->routers);
  net::CollectiveRegistry collectives("collective");
  net::RegisterCollectiveModels(collectives);
  DLSIM_ASSIGN_OR_RETURN(auto coll, collectives.Create(std::string(net::kDefaultCollectiveModel), network));
  env->collective = std::move(coll);
  DLSIM_ASSIGN_OR_RETURN(env->profiles, DefaultOperatorProfiles());
  return env;
}

Result<std::unique_ptr<IterationCostModel>> MakeCostModel(const ServeOptions& o, const ServeEnvironment& env) {
  ProfiledCostInputs in;
  in.model = o.model;
  in.gpu = o.gpu;
  in.tp = o.hardware.tp;
  in.pp = o.hardware.pp;
  in.compute = cost::MakeRooflineComputeModel(o.gpu, env.compute);
  in.collective = env.collective;
  in.fabric = SingleNodeFabric(o.gpu);
  in.profile = FindProfile(env.profiles, o.gpu.name, o.model.name, o.hardware.tp);
  return MakeProfiledCostModel(in);
}

namespace {

std::string Sec(double s) { return report::FormatDuration(Seconds(s)); }

void LatencyRow(report::Table& t, const std::string& name, const Percentiles& p) {
  t.AddRow({name, Sec(p.p50), Sec(p.p90), Sec(p.p99), Sec(p.mean)});
}

}  // namespace

std::string FormatReport(const ServeOptions& o, const ServeResult& r) {
  std::string out = fmt::format("{}: {} on {} x {} (tp {}, pp {}), scheduler {}, {} operators\n", o.name,
                                o.model.name, r.replicas, o.gpu.name, o.hardware.tp, o.hardware.pp, r.scheduler,
                                r.profiled ? "profiled (Vidur)" : "roofline");
  if (!r.feasible) return out + "infeasible: " + r.infeasible_reason + "\n";
  const ServeMetrics& m = r.metrics;
  report::Table lat("latency");
  lat.AddColumn("metric").AddColumn("p50").AddColumn("p90").AddColumn("p99").AddColumn("mean");
  LatencyRow(lat, "TTFT", m.ttft_s);
  LatencyRow(lat, "TPOT", m.tpot_s);
  LatencyRow(lat, "end-to-end", m.e2e_s);
  LatencyRow(lat, "queueing", m.queueing_s);
  out += lat.Render();
  report::Table s("throughput and SLO");
  s.AddColumn("metric").AddColumn("value");
  s.AddRow({"requests completed", report::FormatCount(m.requests_completed) + " of " + report::FormatCount(m.requests_total)});
  s.AddRow({"throughput", report::FormatRate(m.throughput_tokens_per_s, "tokens/s")});
  s.AddRow({"requests/s", report::FormatRate(m.throughput_requests_per_s, "req/s")});
  s.AddRow({"goodput", report::FormatRate(m.goodput_requests_per_s, "req/s")});
  s.AddRow({fmt::format("SLO attainment (TTFT <= {} s, TPOT <= {} s)", o.slo.ttft_s, o.slo.tpot_s),
            report::FormatPercent(m.slo_attainment)});
  s.AddRow({"KV blocks per replica", report::FormatCount(r.memory.kv_blocks)});
  s.AddRow({"KV use mean / peak", report::FormatPercent(m.kv_mean_utilization) + " / " +
                                      report::FormatPercent(m.kv_peak_utilization)});
  s.AddRow({"preemptions", report::FormatCount(m.preemptions)});
  s.AddRow({"iterations (mean batch)", fmt::format("{} ({:.1f})", report::FormatCount(m.iterations), m.mean_batch_requests)});
  if (o.offload.mode != OffloadMode::kNone) {
    s.AddRow({"host memory per GPU", report::FormatBytes(GiB(m.host_memory_gib_per_gpu))});
    s.AddRow({"offload interval (min / mean)", fmt::format("{} / {:.2f}", r.memory.min_interval, m.mean_offload_interval)});
    s.AddRow({"offload stall", Sec(m.offload_stall_s)});
  }
  return out + s.Render();
}

std::string FormatCapacityReport(const ServeOptions& o, const CapacityResult& cap, double target) {
  std::string out = fmt::format("{}: highest rate per replica with SLO attainment >= {}: {:.3f} req/s\n", o.name,
                                report::FormatPercent(target), cap.rate_per_replica);
  report::Table t("probes");
  t.AddColumn("rate per replica", "req/s").AddColumn("SLO attainment");
  for (const CapacityProbe& p : cap.probes) {
    t.AddRow({fmt::format("{:.4f}", p.rate_per_replica), report::FormatPercent(p.slo_attainment)});
  }
  return out + t.Render();
}

}  // namespace dlsim::serve
