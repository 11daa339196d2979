// Private: what a serving run's requests measured, from their time points (serve/request.h): one record per
// request and the request metrics of serve/simulator.h ServeMetrics. Pure functions.
#ifndef DLSIM_SRC_SERVE_REQUEST_METRICS_H_
#define DLSIM_SRC_SERVE_REQUEST_METRICS_H_

#include <vector>

#include "dlsim/core/log_histogram.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/request.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::serve::internal {

// One record per request, in arrival order (a request not completed has only its arrival, lengths and
// preemptions). The first-token path `first_token` (engine_host.h) delays every token the client sees by the
// same time; a record meets the SLO when its TTFT and (with more than one output token) its TPOT do.
std::vector<RequestRecord> RequestRecords(const std::vector<Request>& reqs, Duration first_token,
                                          const SloOptions& slo);

// Fills the request metrics of `m` from the completed requests: TTFT, TPOT (requests of two or more output
// tokens), end-to-end and queueing percentiles, ITL from `itl` (every inter-token gap of the run), makespan
// (first arrival to last completion), token and request throughput, goodput and SLO attainment (over
// m.requests_total, which must be set).
void AddRequestMetrics(const std::vector<Request>& reqs, Duration first_token, const SloOptions& slo,
                       const LogHistogram& itl, ServeMetrics& m);

}  // namespace dlsim::serve::internal

#endif  // DLSIM_SRC_SERVE_REQUEST_METRICS_H_
