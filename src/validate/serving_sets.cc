// serving-vllm-public and its -ttft, -itl, -throughput and -latency sets: published vLLM runs
// (data/validation/vllm_public_serving.csv), each a serve scenario of its engine release; the metrics are
// TPOT and, where the run published them, TTFT, ITL and request throughput, each latency the statistic the
// run reported (the `stat` column: mean, or median). Choices the sources leave open are the CSV's columns
// (docs/validation.md, "serving-vllm-public").
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/simulate.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view VllmPublicServingCsv();
std::string_view ShareGptLlama3LengthsCsv();  // data/lengths/sharegpt_v3_llama3.csv
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {

// Every row of vllm_public_serving.csv with its simulated run (or why it has none), computed once per runner
// (Runner::serving) for the four sets that score them.
struct ServingRuns {
  CsvTable table;
  std::vector<Result<serve::ServeResult>> runs;
};

namespace {

// Seed of the Poisson arrivals of the rate-driven rows (the sources do not give theirs).
constexpr uint64_t kArrivalSeed = 1;

serve::LengthDistribution Fixed(double tokens) {
  serve::LengthDistribution d;
  d.kind = serve::LengthDistribution::Kind::kFixed;
  d.value = tokens;
  return d;
}

// The row's workload: `requests` sent at once (rate 0) or arriving as a Poisson process at `rate`.
serve::WorkloadOptions Workload(int64_t requests, double rate, double prompt, double output) {
  serve::WorkloadOptions w;
  w.requests = requests;
  w.prompt = Fixed(prompt);
  w.output = Fixed(output);
  w.seed = kArrivalSeed;
  if (rate > 0) {
    w.rate = rate;
    return w;
  }
  w.arrival = serve::ArrivalKind::kTrace;
  w.trace.assign(static_cast<size_t>(requests),
                 {0.0, static_cast<int64_t>(prompt), static_cast<int64_t>(output)});
  return w;
}

// benchmark_serving's ShareGPT requests (`lengths` = sharegpt): the first `requests` of vLLM's sampling
// order, tokenized for Llama 3 (`t`: data/lengths/sharegpt_v3_llama3.csv), arriving as a Poisson process at
// `rate` (0: all at once). The sample's output lengths are the dataset's, each request's `max_tokens`; where
// the run printed the mean it generated (`output_mean`: the model stopped earlier at its end-of-sequence
// token), every output is scaled to that mean, at least one token.
Result<serve::WorkloadOptions> ShareGptWorkload(const CsvTable& t, int64_t requests, double rate,
                                                double output_mean) {
  if (requests > static_cast<int64_t>(t.rows.size()) || requests < 1 || !(rate >= 0))
    return Error::InvalidArgument("vllm_public_serving.csv: a sharegpt row needs 1.." +
                                  std::to_string(t.rows.size()) + " requests and a rate >= 0");
  serve::WorkloadOptions w;
  w.requests = requests;
  w.seed = kArrivalSeed;
  w.arrival = serve::ArrivalKind::kTrace;
  w.trace_arrivals = rate == 0;  // every request at 0; else the file gives lengths only, Poisson at `rate`
  if (rate > 0) w.rate = rate;
  double outputs = 0;
  for (size_t i = 0; i < static_cast<size_t>(requests); ++i) {
    DLSIM_ASSIGN_OR_RETURN(double p, t.Number(i, "num_prefill_tokens"));
    DLSIM_ASSIGN_OR_RETURN(double o, t.Number(i, "num_decode_tokens"));
    w.trace.push_back({0.0, static_cast<int64_t>(p), static_cast<int64_t>(o)});
    outputs += o;
  }
  if (output_mean > 0 && !(outputs > 0))
    return Error::InvalidArgument("sharegpt_v3_llama3.csv: the first " + std::to_string(requests) +
                                  " requests have no output tokens to scale to output_mean");
  const double scale = output_mean > 0 ? output_mean * static_cast<double>(requests) / outputs : 1.0;
  if (output_mean > 0)
    for (auto& r : w.trace)
      r.output_tokens = std::max<int64_t>(1, std::llround(static_cast<double>(r.output_tokens) * scale));
  return w;
}

// The row's workload: fixed lengths (`lengths` empty) or benchmark_serving's ShareGPT requests (`sharegpt`:
// the parsed sample).
Result<serve::WorkloadOptions> RowWorkload(const CsvTable& t, size_t i, const CsvTable& sharegpt) {
  auto num = [&](const char* c) { return *t.Number(i, c); };
  const auto requests = static_cast<int64_t>(num("requests"));
  DLSIM_ASSIGN_OR_RETURN(std::string lengths, t.Text(i, "lengths"));
  DLSIM_ASSIGN_OR_RETURN(std::string mean, t.Text(i, "output_mean"));
  if (lengths == "sharegpt")
    return ShareGptWorkload(sharegpt, requests, num("rate"), mean.empty() ? 0.0 : num("output_mean"));
  if (!lengths.empty())
    return Error::Parse("vllm_public_serving.csv: lengths is 'sharegpt' or empty, found '" + lengths + "'");
  return Workload(requests, num("rate"), num("prompt"), num("output"));
}

// The engine's scheduler and CPU time with the row's overrides (empty cells keep the engine's).
Status ApplyEngine(const CsvTable& t, size_t i, serve::ServeOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(o.engine, t.Text(i, "engine"));
  DLSIM_ASSIGN_OR_RETURN(const serve::EngineProfile* e, serve::FindEngine(o.engine));
  o.scheduler = e->SchedulerDefaults(o.model, o.gpu.hbm_capacity.ToGiB());
  DLSIM_ASSIGN_OR_RETURN(std::string seqs, t.Text(i, "max_num_seqs"));  // the server's --max-num-seqs
  if (!seqs.empty()) {
    DLSIM_ASSIGN_OR_RETURN(double n, t.Number(i, "max_num_seqs"));
    if (!(n >= 1 && n <= 65536) || n != std::floor(n))
      return Error::Parse("vllm_public_serving.csv row " + std::to_string(i + 1) +
                          ": column 'max_num_seqs' is a whole number 1..65536, found '" + seqs + "'");
    o.scheduler.max_batch_size = static_cast<int>(n);
  }
  DLSIM_ASSIGN_OR_RETURN(std::string scheduler, t.Text(i, "scheduler"));
  if (!scheduler.empty()) {
    o.scheduler.name = scheduler;
    DLSIM_ASSIGN_OR_RETURN(double chunk, t.Number(i, "chunk"));
    o.scheduler.max_batched_tokens = o.scheduler.chunk_size = static_cast<int64_t>(chunk);
  }
  // A run timed without the API server (an offline LLMEngine) pays no streaming and no first-token path.
  DLSIM_ASSIGN_OR_RETURN(std::string frontend, t.Text(i, "frontend"));
  if (frontend == "offline")
    o.engine_host_keys.stream = o.engine_host_keys.first_token = Duration();
  else if (!frontend.empty())
    return Error::Parse("vllm_public_serving.csv: frontend is 'offline' or empty, found '" + frontend + "'");
  DLSIM_ASSIGN_OR_RETURN(std::string steps, t.Text(i, "scheduler_steps"));
  if (steps.empty()) return Status::Ok();
  DLSIM_ASSIGN_OR_RETURN(double n, t.Number(i, "scheduler_steps"));
  DLSIM_ASSIGN_OR_RETURN(double async, t.Number(i, "async_output"));
  o.engine_host_keys.scheduler_steps = static_cast<int>(n);
  o.engine_host_keys.async_output = async != 0;
  return Status::Ok();
}

// The row's weights: a name of model.weight_dtype (fp16, bf16, fp8, int4, int8; serve/weight_quant.h).
Status ApplyWeightDType(const CsvTable& t, size_t i, serve::ServeOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(std::string dtype, t.Text(i, "weight_dtype"));
  for (const auto& [name, precision] : serve::kWeightPrecisionNames) {
    if (dtype != name) continue;
    o.weight_dtype = precision.dtype;
    o.weight_quant = precision.quant;
    return Status::Ok();
  }
  return Error::Parse("vllm_public_serving.csv row " + std::to_string(i + 1) +
                      ": column 'weight_dtype' is fp16, bf16, fp8, int4 or int8, found '" + dtype + "'");
}

Result<serve::ServeOptions> ServingScenario(const CsvTable& t, size_t i, const catalog::Catalogs& cat,
                                            const CsvTable& sharegpt) {
  auto num = [&](const char* c) { return *t.Number(i, c); };
  serve::ServeOptions o;
  DLSIM_ASSIGN_OR_RETURN(o.name, t.Text(i, "label"));
  DLSIM_ASSIGN_OR_RETURN(std::string model, t.Text(i, "model"));
  DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, cat.models.Find(model));
  o.model = *m;
  DLSIM_ASSIGN_OR_RETURN(std::string context, t.Text(i, "max_model_len"));
  if (!context.empty()) o.model.max_seq_len = static_cast<int>(num("max_model_len"));
  DLSIM_ASSIGN_OR_RETURN(std::string gpu, t.Text(i, "gpu"));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, cat.hardware.FindGpu(gpu));
  o.gpu = *g;
  o.hardware.tp = static_cast<int>(num("tp"));
  DLSIM_RETURN_IF_ERROR(ApplyWeightDType(t, i, o));
  DLSIM_RETURN_IF_ERROR(ApplyEngine(t, i, o));
  DLSIM_ASSIGN_OR_RETURN(o.workload, RowWorkload(t, i, sharegpt));
  return o;
}

// The statistic the row's run reported: the `stat` column, mean (also when empty) or median.
Result<double> Statistic(const CsvTable& t, size_t i, const Percentiles& p) {
  DLSIM_ASSIGN_OR_RETURN(std::string stat, t.Text(i, "stat"));
  if (stat.empty() || stat == "mean") return p.mean;
  if (stat == "median") return p.p50;
  return Error::Parse("vllm_public_serving.csv: stat is 'mean', 'median' or empty, found '" + stat + "'");
}

Result<std::shared_ptr<const ServingRuns>> SimulateServingRows(const catalog::Catalogs& catalogs) {
  auto out = std::make_shared<ServingRuns>();
  DLSIM_ASSIGN_OR_RETURN(out->table, ParseCsv(embedded::VllmPublicServingCsv(), "vllm_public_serving.csv"));
  DLSIM_ASSIGN_OR_RETURN(const CsvTable sharegpt,
                         ParseCsv(embedded::ShareGptLlama3LengthsCsv(), "sharegpt_v3_llama3.csv"));
  for (size_t i = 0; i < out->table.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(serve::ServeOptions o, ServingScenario(out->table, i, catalogs, sharegpt));
    out->runs.push_back(serve::Simulate(o, catalogs, nullptr));
  }
  return std::shared_ptr<const ServingRuns>(std::move(out));
}

// The value a row's simulated run gives for a metric column: in the column's unit.
using MetricOf = Result<double> (*)(const CsvTable& t, size_t i, const serve::ServeMetrics& m);

// The rows of vllm_public_serving.csv with a value in `column`, each against `metric` of its simulated run.
Result<ValidationSet> ServingRows(Runner& run, ValidationSet set, const char* column, MetricOf metric) {
  if (!run.serving) {
    DLSIM_ASSIGN_OR_RETURN(run.serving, SimulateServingRows(run.catalogs));
  }
  const CsvTable& t = run.serving->table;
  set.source = Source(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(std::string cell, t.Text(i, column));
    if (cell.empty()) continue;
    ValidationRow row;
    DLSIM_ASSIGN_OR_RETURN(row.label, t.Text(i, "label"));
    DLSIM_ASSIGN_OR_RETURN(row.measured, t.Number(i, column));
    const auto& r = run.serving->runs[i];
    row.feasible = r.ok() && r->feasible;
    if (!r.ok()) row.note = r.error().message;
    if (r.ok() && !r->feasible) row.note = r->reason;
    if (row.feasible) {
      DLSIM_ASSIGN_OR_RETURN(row.predicted, metric(t, i, r->metrics));
    }
    set.rows.push_back(std::move(row));
  }
  return set;
}

// A latency metric in ms: the row's statistic (`stat`) of the run's distribution.
template <Percentiles serve::ServeMetrics::*kField>
Result<double> LatencyMs(const CsvTable& t, size_t i, const serve::ServeMetrics& m) {
  DLSIM_ASSIGN_OR_RETURN(double seconds, Statistic(t, i, m.*kField));
  return seconds * 1e3;
}

// Requests per second as benchmark_serving reports it: completed requests over the benchmark's duration.
Result<double> RequestsPerSecond(const CsvTable&, size_t, const serve::ServeMetrics& m) {
  return m.throughput_requests_per_s;
}

// An offline batch's latency as benchmark_latency reports it (ms): the run's duration, every request of the
// batch sent at once.
Result<double> BatchLatencyMs(const CsvTable&, size_t, const serve::ServeMetrics& m) {
  return m.makespan_s * 1e3;
}

}  // namespace

Result<ValidationSet> ServingVllmPublic(Runner& run) {
  return ServingRows(run, {"serving-vllm-public", "TPOT (ms, mean or median)", "", 0.0, {}}, "tpot_ms",
                     LatencyMs<&serve::ServeMetrics::tpot_s>);
}

Result<ValidationSet> ServingVllmPublicTtft(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-ttft", "TTFT (ms, mean or median)", "", 0.0, {}}, "ttft_ms",
                     LatencyMs<&serve::ServeMetrics::ttft_s>);
}

Result<ValidationSet> ServingVllmPublicItl(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-itl", "ITL (ms, mean or median)", "", 0.0, {}}, "itl_ms",
                     LatencyMs<&serve::ServeMetrics::itl_s>);
}

Result<ValidationSet> ServingVllmPublicThroughput(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-throughput", "requests/s (run duration)", "", 0.0, {}},
                     "throughput_rps", RequestsPerSecond);
}

Result<ValidationSet> ServingVllmPublicLatency(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-latency", "batch latency (ms, offline)", "", 0.0, {}},
                     "latency_ms", BatchLatencyMs);
}

}  // namespace dlsim::validate::internal
