// The serving simulator: requests arrive, a router spreads them over replicas, each replica's
// scheduler forms iterations whose time comes from the iteration cost model.
//
// Event-driven: one pending arrival event and at most one iteration-completion event per
// replica live in the queue, so the heap stays small. Work per iteration is proportional to the
// batch (bounded by max_batch_size), not to the number of requests in the system.
//
//   serve::SchedulerRegistry schedulers("serving-scheduler");  serve::RegisterSchedulers(schedulers);
//   serve::RouterRegistry routers("router");                   serve::RegisterRouters(routers);
//   auto r = serve::Simulate(options, *cost, schedulers, routers, &trace_sink);   // Result<ServeResult>
//
// A configuration that cannot run (weights do not fit) is a result with feasible == false and
// a reason; errors are for bad names and empty workloads. Simulate() is reentrant: it owns all
// of its state, so several may run in parallel threads (sinks are per call).
#ifndef DLSIM_SERVE_SIMULATOR_H_
#define DLSIM_SERVE_SIMULATOR_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/progress.h"
#include "dlsim/core/result.h"
#include "dlsim/core/stats.h"
#include "dlsim/report/sink.h"
#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/offload.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/router.h"
#include "dlsim/serve/scheduler.h"

namespace dlsim::serve {

struct ServeMetrics {
  int64_t requests_total = 0;
  int64_t requests_completed = 0;
  int64_t completions_recorded = 0;  // finish events seen (== requests_completed unless a bug)
  // tpot_s summarises the completed requests with at least 2 output tokens (tpot_requests of them): a
  // request of one output token has no time per output token. With none, tpot_s is all zeros and is
  // reported as not applicable.
  Percentiles ttft_s, tpot_s, e2e_s, queueing_s;
  int64_t tpot_requests = 0;
  // Inter-token latency as vLLM's benchmark_serving reports it: every gap between two consecutive output
  // tokens of any request (preemption stalls and prefills batched into a decode included), all requests
  // together; percentiles within 1% (core/log_histogram.h), mean and max exact.
  Percentiles itl_s;
  int64_t itl_gaps = 0;
  double makespan_s = 0;               // first arrival to last completion
  double arrival_span_s = 0;           // first arrival to last (a closed loop's: sends)
  double throughput_tokens_per_s = 0;  // output tokens
  double throughput_requests_per_s = 0;
  double goodput_requests_per_s = 0;  // requests meeting both SLOs per second
  double slo_attainment = 0;          // fraction of requests meeting TTFT and TPOT SLOs
  double kv_mean_utilization = 0;     // time-weighted, mean over replicas
  double kv_peak_utilization = 0;     // max over replicas
  int64_t kv_overcommits = 0;         // iterations that ended with used > total blocks (must be 0)
  int64_t preemptions = 0;
  int64_t iterations = 0;
  double mean_batch_requests = 0;
  // Engine CPU time the steps exposed (serve/engine_host.h: scheduling, and output processing the GPU did not
  // hide), summed over replicas; 0 under an engine without host costs.
  double engine_cpu_s = 0;
  // Prefix caching (serve/prefix_cache.h), when the run caches prefixes: prefill tokens of the admissions
  // that looked in the cache (prompts, and prompts with their generated tokens after a recompute), and the
  // share of them found there.
  bool prefix_caching = false;
  int64_t prefix_lookup_tokens = 0, prefix_hit_tokens = 0;
  double prefix_hit_rate = 0;
  // Offloading.
  double host_memory_gib_per_gpu = 0;
  double mean_offload_interval = 0;  // over iterations that offloaded
  double offload_stall_s = 0;        // summed over replicas
};

// One request of a run, for per-request tables (CSV) and distributions (CDFs). Times are
// seconds from the start of the run; the latency fields are those the metrics summarise, and
// are 0 for a request that did not complete.
struct RequestRecord {
  int64_t id = 0;    // index in arrival order
  int replica = -1;  // the replica it completed on (the decode replica when disaggregated)
  int32_t prompt_tokens = 0, output_tokens = 0;
  double arrival_s = 0, first_scheduled_s = 0, first_token_s = 0, finish_s = 0;
  double ttft_s = 0, tpot_s = 0, e2e_s = 0, queueing_s = 0;  // tpot_s: 0 with one output token (none)
  double itl_max_s = 0;  // its longest inter-token gap (0 with one output token)
  int preemptions = 0;
  int32_t cached_tokens = 0;  // prompt tokens its prefills found in the prefix cache
  bool completed = false;
  bool met_slo = false;  // TTFT and TPOT (when it has one) within the SLO
};

// The interval of one predicted figure of a run (serve/prediction_interval.h): the mean TPOT, the mean TTFT
// or the request throughput, in that figure's unit.
struct MetricInterval {
  double low = 0, high = 0;  // of the figure
  double level = 0.8;        // nominal coverage
  std::string regime;        // the regime of data/calibration/intervals.yaml it came from, or outside
  bool outside = false;      // no validation run covers the engine, GPU and weight format: widened
};

struct ServeResult {
  bool feasible = true;
  std::string reason;  // why not, when infeasible
  std::string scheduler;
  int replicas = 0;
  MemoryPlan memory;
  bool profiled = false;  // token-level operators from measured profiles
  ServeMetrics metrics;
  std::vector<RequestRecord> records;  // arrival order; only with options.keep_records
  // Set by the callers that hold the catalogs' intervals (serve::Simulate with catalogs, the serve command,
  // serve::AttachIntervals).
  std::optional<MetricInterval> tpot_interval;        // of metrics.tpot_s.mean, s
  std::optional<MetricInterval> ttft_interval;        // of metrics.ttft_s.mean, s
  std::optional<MetricInterval> throughput_interval;  // of metrics.throughput_requests_per_s, requests/s
};

// Runs the scenario. `sink` (may be null) receives a span per iteration and KV counters; the
// caller calls Begin/Finish. `progress` (may be empty) is called with the requests completed of all, every
// 65,536 events and at the end. Errors: unknown scheduler or router names, an empty workload.
Result<ServeResult> Simulate(const ServeOptions& options, const IterationCostModel& cost,
                             const SchedulerRegistry& schedulers, const RouterRegistry& routers,
                             report::Sink* sink = nullptr, const ProgressFn& progress = {});

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_SIMULATOR_H_
