// Terminal and JSON renderings of a serving result (dlsim serve).
#include "dlsim/app/serve_render.h"

#include <fmt/format.h>

#include "dlsim/report/format.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"

namespace dlsim::app {

using serve::CapacityProbe;
using serve::CapacityResult;
using serve::OffloadMode;
using serve::ServeMetrics;
using serve::ServeOptions;
using serve::ServeResult;

std::string IntervalSource(const serve::MetricInterval& iv) {
  return iv.outside ? "OUTSIDE the validated runs: widened" : iv.regime;
}

namespace {

void AddInterval(nlohmann::ordered_json& j, const char* key, const std::optional<serve::MetricInterval>& iv) {
  if (iv) j[key] = report::IntervalJson(iv->low, iv->high, iv->level, iv->regime, iv->outside);
}

std::string Sec(double s) { return report::FormatDuration(Seconds(s)); }

// The interval of a latency's mean (serve/prediction_interval.h), when it has one.
void IntervalRow(report::Table& t, const std::string& name, const std::optional<serve::MetricInterval>& iv) {
  if (!iv) return;
  t.AddRow({fmt::format("{} mean, {:.0f}% interval ({})", name, 100 * iv->level, IntervalSource(*iv)), "", "",
            "", Sec(iv->low) + " - " + Sec(iv->high)});
}

void LatencyRow(report::Table& t, const std::string& name, const Percentiles& p) {
  t.AddRow({name, Sec(p.p50), Sec(p.p90), Sec(p.p99), Sec(p.mean)});
}

}  // namespace

nlohmann::ordered_json ServeJson(const ServeResult& r) {
  auto pct = [](const Percentiles& p) {
    return nlohmann::ordered_json{{"p50", p.p50}, {"p90", p.p90}, {"p99", p.p99}, {"mean", p.mean}};
  };
  const ServeMetrics& m = r.metrics;
  nlohmann::ordered_json j;
  j["feasible"] = r.feasible;
  if (!r.feasible) j["reason"] = r.reason;
  j["scheduler"] = r.scheduler;
  j["requests_total"] = m.requests_total;
  j["requests_completed"] = m.requests_completed;
  j["ttft_s"] = pct(m.ttft_s);
  AddInterval(j, "ttft_mean_interval_s", r.ttft_interval);
  j["tpot_s"] = m.tpot_requests > 0 ? pct(m.tpot_s) : nlohmann::ordered_json();  // null: no request has one
  AddInterval(j, "tpot_mean_interval_s", r.tpot_interval);
  nlohmann::ordered_json itl = pct(m.itl_s);
  itl["max"] = m.itl_s.max;                                      // the longest stall
  j["itl_s"] = m.itl_gaps > 0 ? itl : nlohmann::ordered_json();  // null: no gap at all
  j["e2e_s"] = pct(m.e2e_s);
  j["queueing_s"] = pct(m.queueing_s);
  j["throughput_tokens_per_s"] = m.throughput_tokens_per_s;
  j["throughput_requests_per_s"] = m.throughput_requests_per_s;
  AddInterval(j, "throughput_requests_per_s_interval", r.throughput_interval);
  j["goodput_requests_per_s"] = m.goodput_requests_per_s;
  j["slo_attainment"] = m.slo_attainment;
  j["makespan_s"] = m.makespan_s;
  j["kv_cache"] = {{"blocks_per_replica", r.memory.kv_blocks},
                   {"block_bytes", report::JsonBytes(r.memory.block_bytes)},
                   {"mean_utilization", m.kv_mean_utilization},
                   {"peak_utilization", m.kv_peak_utilization}};
  j["preemptions"] = m.preemptions;
  j["iterations"] = m.iterations;
  j["mean_batch_requests"] = m.mean_batch_requests;
  j["engine_cpu_s"] = m.engine_cpu_s;
  if (m.prefix_caching)  // present when the run caches prefixes
    j["prefix_cache"] = {{"hit_rate", m.prefix_hit_rate},
                         {"lookup_tokens", m.prefix_lookup_tokens},
                         {"hit_tokens", m.prefix_hit_tokens}};
  j["offload"] = {{"host_memory_gib_per_gpu", m.host_memory_gib_per_gpu},
                  {"min_interval", r.memory.min_interval},
                  {"mean_interval", m.mean_offload_interval},
                  {"stall_s", m.offload_stall_s}};
  j["profiled_operators"] = r.profiled;
  return j;
}

nlohmann::ordered_json CapacityJson(const CapacityResult& cap, double target) {
  nlohmann::ordered_json j;
  j["target_slo_attainment"] = target;
  j["rate_per_replica"] = cap.rate_per_replica;
  nlohmann::ordered_json probes = nlohmann::ordered_json::array();
  for (const auto& p : cap.probes)
    probes.push_back({{"rate_per_replica", p.rate_per_replica}, {"slo_attainment", p.slo_attainment}});
  j["probes"] = probes;
  j["met"] = cap.met;
  j["bounded"] = cap.bounded;
  if (cap.met) {
    j["at_capacity"] = ServeJson(cap.at_capacity);
  } else {
    j["at_capacity"] = nullptr;
    j["reason"] = cap.reason;
    j["at_lowest_rate"] = ServeJson(cap.at_capacity);
  }
  return j;
}

std::string FormatServeReport(const ServeOptions& o, const ServeResult& r) {
  std::string out = fmt::format(
      "{}: {} on {} x {}{} (tp {}, pp {}), scheduler {}, {} operators\n", o.name, o.model.name,
      o.hardware.replicas, o.gpu.name, report::FormatLockedClock(o.hardware.sm_clock_mhz), o.hardware.tp,
      o.hardware.pp, r.scheduler, r.profiled ? "profiled (Vidur)" : o.compute_model);
  if (!r.feasible) return out + "infeasible: " + r.reason + "\n";
  const ServeMetrics& m = r.metrics;
  report::Table lat("latency");
  lat.AddColumn("metric").AddColumn("p50").AddColumn("p90").AddColumn("p99").AddColumn("mean");
  LatencyRow(lat, "TTFT", m.ttft_s);
  IntervalRow(lat, "TTFT", r.ttft_interval);
  if (m.tpot_requests > 0)
    LatencyRow(lat, "TPOT", m.tpot_s);
  else
    lat.AddRow({"TPOT", "n/a", "n/a", "n/a", "n/a (every request has one output token)"});
  IntervalRow(lat, "TPOT", r.tpot_interval);
  if (m.itl_gaps > 0) LatencyRow(lat, "ITL", m.itl_s);
  LatencyRow(lat, "end-to-end", m.e2e_s);
  LatencyRow(lat, "queueing", m.queueing_s);
  out += lat.Render();
  report::Table s("throughput and SLO");
  s.AddColumn("metric").AddColumn("value");
  s.AddRow({"requests completed",
            report::FormatCount(m.requests_completed) + " of " + report::FormatCount(m.requests_total)});
  s.AddRow({"throughput", report::FormatRate(m.throughput_tokens_per_s, "tokens/s")});
  s.AddRow({"requests/s", report::FormatRate(m.throughput_requests_per_s, "req/s")});
  if (const auto& iv = r.throughput_interval)
    s.AddRow({fmt::format("requests/s, {:.0f}% interval ({})", 100 * iv->level, IntervalSource(*iv)),
              report::FormatRate(iv->low, "req/s") + " - " + report::FormatRate(iv->high, "req/s")});
  s.AddRow({"goodput", report::FormatRate(m.goodput_requests_per_s, "req/s")});
  s.AddRow({fmt::format("SLO attainment (TTFT <= {} s, TPOT <= {} s)", o.slo.ttft_s, o.slo.tpot_s),
            report::FormatPercent(m.slo_attainment)});
  s.AddRow({"KV blocks per replica", report::FormatCount(r.memory.kv_blocks)});
  s.AddRow({"KV use mean / peak", report::FormatPercent(m.kv_mean_utilization) + " / " +
                                      report::FormatPercent(m.kv_peak_utilization)});
  s.AddRow({"preemptions", report::FormatCount(m.preemptions)});
  s.AddRow({"iterations (mean batch)",
            fmt::format("{} ({:.1f})", report::FormatCount(m.iterations), m.mean_batch_requests)});
  if (m.engine_cpu_s > 0)
    s.AddRow({fmt::format("engine CPU time exposed ({})", o.engine), Sec(m.engine_cpu_s)});
  if (m.prefix_caching)
    s.AddRow({"prefix cache hits (prefill tokens)", report::FormatPercent(m.prefix_hit_rate) + " of " +
                                                        report::FormatCount(m.prefix_lookup_tokens)});
  if (o.offload.mode != OffloadMode::kNone) {
    s.AddRow({"host memory per GPU", report::FormatBytes(GiB(m.host_memory_gib_per_gpu))});
    s.AddRow({"offload interval (min / mean)",
              fmt::format("{} / {:.2f}", r.memory.min_interval, m.mean_offload_interval)});
    s.AddRow({"offload stall", Sec(m.offload_stall_s)});
  }
  return out + s.Render();
}

std::string FormatCapacityReport(const ServeOptions& o, const CapacityResult& cap, double target) {
  std::string out = fmt::format("{}: highest rate per replica with SLO attainment >= {}: {:.3f} req/s\n",
                                o.name, report::FormatPercent(target), cap.rate_per_replica);
  if (!cap.met) out = fmt::format("{}: {}\n", o.name, cap.reason);
  if (cap.met && !cap.bounded) {
    out = fmt::format(
        "{}: SLO attainment >= {} at every rate probed, up to {:.0f} req/s per replica (the top of the "
        "search, so a lower bound: the SLO is looser than any queueing of this workload)\n",
        o.name, report::FormatPercent(target), cap.rate_per_replica);
  }
  report::Table t("probes");
  t.AddColumn("rate per replica", "req/s").AddColumn("SLO attainment");
  for (const CapacityProbe& p : cap.probes) {
    t.AddRow({fmt::format("{:.4f}", p.rate_per_replica), report::FormatPercent(p.slo_attainment)});
  }
  return out + t.Render();
}

}  // namespace dlsim::app
