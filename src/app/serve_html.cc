// `dlsim serve --html` and `--csv`: the per-request view of a run (see serve_render.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dlsim/app/serve_render.h"
#include "dlsim/report/format.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::app {
namespace {

constexpr int kThroughputBins = 120;
constexpr int kQueueBins = 400;

std::string Pct(const Percentiles& p, double scale, const char* unit) {
  return fmt::format("p50 {:.4g} {}, p99 {:.4g} {}", p.p50 * scale, unit, p.p99 * scale, unit);
}

// " (80% interval LOW - HIGH UNIT, REGIME)": how sure a figure is (serve/prediction_interval.h); "" without
// an interval. `scale` and `unit` as Pct's.
std::string IntervalText(const std::optional<serve::MetricInterval>& iv, double scale, const char* unit) {
  if (!iv) return "";
  return fmt::format(" ({:.0f}% interval {:.4g} - {:.4g} {}, {})", 100 * iv->level, iv->low * scale,
                     iv->high * scale, unit, IntervalSource(*iv));
}

// "; mean M UNIT (80% interval ...)": a latency's mean, which is what its interval is of.
std::string MeanWithInterval(double mean, const std::optional<serve::MetricInterval>& iv, double scale,
                             const char* unit) {
  if (!iv) return "";
  return fmt::format("; mean {:.4g} {}", mean * scale, unit) + IntervalText(iv, scale, unit);
}

void AddSummary(const serve::ServeOptions& o, const serve::ServeResult& r, report::HtmlPage& page) {
  const serve::ServeMetrics& m = r.metrics;
  std::vector<std::pair<std::string, std::string>> items{
      {"model", o.model.name},
      {"deployment", fmt::format("{} replica(s) of {} x {}, {} scheduler", r.replicas, o.hardware.tp,
                                 o.gpu.name, r.scheduler)}};
  if (!r.feasible) items.emplace_back("infeasible", r.reason);
  items.emplace_back("requests", fmt::format("{} of {} completed", m.requests_completed, m.requests_total));
  items.emplace_back("output throughput", fmt::format("{:.1f} tokens/s", m.throughput_tokens_per_s));
  items.emplace_back("request throughput", fmt::format("{:.4g} requests/s", m.throughput_requests_per_s) +
                                               IntervalText(r.throughput_interval, 1, "requests/s"));
  items.emplace_back("SLO attainment", report::FormatPercent(m.slo_attainment));
  items.emplace_back("TTFT",
                     Pct(m.ttft_s, 1, "s") + MeanWithInterval(m.ttft_s.mean, r.ttft_interval, 1, "s"));
  items.emplace_back(
      "TPOT", m.tpot_requests > 0
                  ? Pct(m.tpot_s, 1e3, "ms") + MeanWithInterval(m.tpot_s.mean, r.tpot_interval, 1e3, "ms")
                  : "n/a (one output token each)");
  page.AddSummary(std::move(items));
}

// The CDF of one latency field of the completed requests of at least `min_output` output tokens (TPOT is
// defined from 2), with the SLO (`slo`, in the chart's unit; 0: none) as a vertical line where it is within
// ten times the slowest request (beyond, the caption states it and the CDF keeps the width).
std::string LatencyCdf(const std::vector<serve::RequestRecord>& records, double serve::RequestRecord::*field,
                       const std::string& title, const std::string& label, double scale,
                       const std::string& unit, double slo, int min_output = 1) {
  std::vector<double> v;
  for (const serve::RequestRecord& r : records)
    if (r.completed && r.output_tokens >= min_output) v.push_back(r.*field * scale);
  const double slowest = v.empty() ? 0 : *std::max_element(v.begin(), v.end());
  std::vector<report::Series> series = {report::Cdf("completed requests", std::move(v))};
  if (slo > 0 && slo <= 10 * slowest) series.push_back({"SLO", {slo, slo}, {0, 1}});
  return report::LineChart({.title = title, .x = {label, unit}, .y = {"fraction of requests"}}, series);
}

// Output tokens per second in equal time bins from the first arrival to the last completion.
report::Series Throughput(const std::vector<serve::RequestRecord>& records) {
  double end = 0;
  for (const auto& r : records) end = std::max(end, r.finish_s);
  report::Series s{.name = "output tokens/s", .step = true};
  if (records.empty() || end <= records.front().arrival_s) return s;
  const double t0 = records.front().arrival_s, width = (end - t0) / kThroughputBins;
  std::vector<double> tokens(kThroughputBins, 0.0);
  for (const auto& r : records) {
    if (!r.completed) continue;
    const int b = std::clamp(static_cast<int>((r.finish_s - t0) / width), 0, kThroughputBins - 1);
    tokens[b] += r.output_tokens;
  }
  for (int b = 0; b < kThroughputBins; ++b) s.x.push_back(t0 + b * width), s.y.push_back(tokens[b] / width);
  return s;
}

// The most requests waiting (arrived, not yet in a batch) at any time within each of
// kQueueBins equal bins of the run.
report::Series QueueLength(const std::vector<serve::RequestRecord>& records) {
  std::vector<std::pair<double, int>> changes;
  for (const auto& r : records) {
    changes.emplace_back(r.arrival_s, +1);
    if (r.completed) changes.emplace_back(r.first_scheduled_s, -1);
  }
  // At equal times the arrival comes first: a request scheduled on arrival waited 0 s, never -1.
  std::sort(changes.begin(), changes.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;
  });
  report::Series s{.name = "waiting requests (bin maximum)", .step = true};
  if (changes.empty()) return s;
  const double t0 = changes.front().first, width = std::max(1e-9, (changes.back().first - t0) / kQueueBins);
  std::vector<double> peak(kQueueBins, 0.0);
  int queued = 0, bin = 0;
  for (const auto& [t, d] : changes) {
    const int b = std::clamp(static_cast<int>((t - t0) / width), 0, kQueueBins - 1);
    while (bin < b) peak[++bin] = queued;  // the level carried into a bin counts there too
    queued += d;
    peak[b] = std::max(peak[b], static_cast<double>(queued));
  }
  while (bin < kQueueBins - 1) peak[++bin] = queued;
  for (int b = 0; b < kQueueBins; ++b) s.x.push_back(t0 + b * width), s.y.push_back(peak[b]);
  return s;
}

}  // namespace

void WriteRequestsCsv(const std::vector<serve::RequestRecord>& records, std::ostream& out) {
  out << "id,replica,prompt_tokens,output_tokens,arrival_s,first_scheduled_s,first_token_s,finish_s,ttft_s,"
         "tpot_s,itl_max_s,e2e_s,queueing_s,preemptions,completed,met_slo,cached_tokens\n";
  for (const serve::RequestRecord& r : records) {
    // An empty tpot_s: the request has one output token, so no time per output token.
    // An empty itl_max_s likewise: no gap between output tokens.
    const bool gaps = r.output_tokens > 1 && r.completed;
    const std::string tpot = r.output_tokens > 1 ? fmt::format("{:.9g}", r.tpot_s) : "";
    const std::string itl = gaps ? fmt::format("{:.9g}", r.itl_max_s) : "";
    out << fmt::format("{},{},{},{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{},{},{:.9g},{:.9g},{},{},{},{}\n",
                       r.id, r.replica, r.prompt_tokens, r.output_tokens, r.arrival_s, r.first_scheduled_s,
                       r.first_token_s, r.finish_s, r.ttft_s, tpot, itl, r.e2e_s, r.queueing_s, r.preemptions,
                       r.completed ? 1 : 0, r.met_slo ? 1 : 0, r.cached_tokens);
  }
}

report::HtmlPage ServeHtml(const serve::ServeOptions& options, const serve::ServeResult& result,
                           const report::TimelineRecorder& timeline) {
  report::HtmlPage page("dlsim serve: " + options.name);
  AddSummary(options, result, page);
  const auto& rec = result.records;
  using R = serve::RequestRecord;
  page.AddChart("Time to first token",
                LatencyCdf(rec, &R::ttft_s, "TTFT CDF", "TTFT", 1, "s", options.slo.ttft_s),
                fmt::format("SLO {} s.", options.slo.ttft_s));
  page.AddChart("Time per output token",
                LatencyCdf(rec, &R::tpot_s, "TPOT CDF", "TPOT", 1e3, "ms", options.slo.tpot_s * 1e3, 2),
                fmt::format("SLO {} ms.", options.slo.tpot_s * 1e3));
  page.AddChart("End-to-end latency",
                LatencyCdf(rec, &R::e2e_s, "End-to-end latency CDF", "latency", 1, "s", 0));
  page.AddChart(
      "Throughput over time",
      report::LineChart({.title = "Output throughput", .x = {"time", "s"}, .y = {"throughput", "tokens/s"}},
                        {Throughput(rec)}),
      fmt::format("Completed requests' output tokens per {}th of the run.", kThroughputBins));
  page.AddChart(
      "Queue length over time",
      report::LineChart(
          {.title = "Requests waiting for their first iteration", .x = {"time", "s"}, .y = {"requests"}},
          {QueueLength(rec)}));
  std::vector<report::Series> kv = timeline.Counters("kv_utilization", 1);
  for (auto& s : kv)
    for (double& y : s.y) y *= 100;
  page.AddChart("KV-cache use over time",
                report::LineChart({.title = "KV-cache blocks in use",
                                   .x = {"time", "s"},
                                   .y = {"KV cache used", "%"},
                                   .y_refs = {{100, "capacity"}}},
                                  kv),
                "Per replica, sampled at iteration starts.");
  return page;
}

}  // namespace dlsim::app
