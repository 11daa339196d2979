// The renderings of a serving result, in one place: the terminal report and the JSON object of
// `dlsim serve --json` (and of --capacity). Printing only.
#ifndef DLSIM_APP_SERVE_RENDER_H_
#define DLSIM_APP_SERVE_RENDER_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "dlsim/report/html_page.h"
#include "dlsim/report/timeline_recorder.h"
#include "dlsim/serve/capacity.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::app {

// At least feasible (and reason), requests_completed, ttft_s, tpot_s, e2e_s (p50, p90, p99,
// mean), throughput_tokens_per_s, throughput_requests_per_s and slo_attainment.
nlohmann::ordered_json ServeJson(const serve::ServeResult& r);

// Where a serving interval comes from, as every rendering names it: its regime, or that the run's engine and
// GPU are outside the validated runs (the interval is then widened; serve/prediction_interval.h).
std::string IntervalSource(const serve::MetricInterval& iv);
// target_slo_attainment, rate_per_replica, probes, met, at_capacity (a ServeJson; null when no rate met
// the target, with `reason` and `at_lowest_rate` instead).
nlohmann::ordered_json CapacityJson(const serve::CapacityResult& cap, double target);

// Tables of latencies, throughput, KV use and offloading.
std::string FormatServeReport(const serve::ServeOptions& options, const serve::ServeResult& result);
std::string FormatCapacityReport(const serve::ServeOptions& options, const serve::CapacityResult& cap,
                                 double target);

// The per-request records as CSV (header first, arrival order): id, replica, prompt_tokens,
// output_tokens, arrival_s, first_scheduled_s, first_token_s, finish_s, ttft_s, tpot_s, e2e_s,
// queueing_s, preemptions, completed, met_slo.
void WriteRequestsCsv(const std::vector<serve::RequestRecord>& records, std::ostream& out);

// The HTML report (`dlsim serve --html`): key figures; TTFT, TPOT and end-to-end latency CDFs
// from `result.records`; output throughput and queue length over time; KV-cache use over time
// per replica from `timeline`'s kv_utilization counters.
report::HtmlPage ServeHtml(const serve::ServeOptions& options, const serve::ServeResult& result,
                           const report::TimelineRecorder& timeline);

}  // namespace dlsim::app

#endif  // DLSIM_APP_SERVE_RENDER_H_
