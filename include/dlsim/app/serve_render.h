// The renderings of a serving result, in one place: the terminal report and the JSON object of
// `dlsim serve --json` (and of --capacity). Printing only.
#ifndef DLSIM_APP_SERVE_RENDER_H_
#define DLSIM_APP_SERVE_RENDER_H_

#include <nlohmann/json.hpp>
#include <string>

#include "dlsim/serve/capacity.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::app {

// At least feasible (and reason), requests_completed, ttft_s, tpot_s, e2e_s (p50, p90, p99,
// mean), throughput_tokens_per_s, throughput_requests_per_s and slo_attainment.
nlohmann::ordered_json ServeJson(const serve::ServeResult& r);
// target_slo_attainment, rate_per_replica, probes, met, at_capacity (a ServeJson; null when no rate met
// the target, with `reason` and `at_lowest_rate` instead).
nlohmann::ordered_json CapacityJson(const serve::CapacityResult& cap, double target);

// Tables of latencies, throughput, KV use and offloading.
std::string FormatServeReport(const serve::ServeOptions& options, const serve::ServeResult& result);
std::string FormatCapacityReport(const serve::ServeOptions& options, const serve::CapacityResult& cap,
                                 double target);

}  // namespace dlsim::app

#endif  // DLSIM_APP_SERVE_RENDER_H_
