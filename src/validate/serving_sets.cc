// serving-vllm-public and its -ttft and -itl sets: published vLLM runs
// (data/validation/vllm_public_serving.csv), each a serve scenario of its engine release; the metrics are
// TPOT and, where the run published them, TTFT and ITL, each the statistic the run reported (the `stat`
// column: mean, or median). Choices the sources leave open are the CSV's columns (docs/validation.md,
// "serving-vllm-public").
#include <cmath>
#include <string>

#include "dlsim/core/csv.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/simulate.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view VllmPublicServingCsv();
std::string_view ShareGptLlama3LengthsCsv();  // data/lengths/sharegpt_v3_llama3.csv
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
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
// `rate`.
Result<serve::WorkloadOptions> ShareGptWorkload(const CsvTable& t, int64_t requests, double rate) {
  if (requests > static_cast<int64_t>(t.rows.size()) || !(rate > 0))
    return Error::InvalidArgument("vllm_public_serving.csv: a sharegpt row needs 1.." +
                                  std::to_string(t.rows.size()) + " requests and a rate > 0");
  serve::WorkloadOptions w = Workload(requests, rate, 1, 1);
  w.arrival = serve::ArrivalKind::kTrace;
  w.trace_arrivals = false;
  for (size_t i = 0; i < static_cast<size_t>(requests); ++i) {
    DLSIM_ASSIGN_OR_RETURN(double p, t.Number(i, "num_prefill_tokens"));
    DLSIM_ASSIGN_OR_RETURN(double o, t.Number(i, "num_decode_tokens"));
    w.trace.push_back({0.0, static_cast<int64_t>(p), static_cast<int64_t>(o)});
  }
  return w;
}

// The row's workload: fixed lengths (`lengths` empty) or benchmark_serving's ShareGPT requests (`sharegpt`:
// the parsed sample).
Result<serve::WorkloadOptions> RowWorkload(const CsvTable& t, size_t i, const CsvTable& sharegpt) {
  auto num = [&](const char* c) { return *t.Number(i, c); };
  const auto requests = static_cast<int64_t>(num("requests"));
  DLSIM_ASSIGN_OR_RETURN(std::string lengths, t.Text(i, "lengths"));
  if (lengths == "sharegpt") return ShareGptWorkload(sharegpt, requests, num("rate"));
  if (!lengths.empty())
    return Error::Parse("vllm_public_serving.csv: lengths is 'sharegpt' or empty, found '" + lengths + "'");
  return Workload(requests, num("rate"), num("prompt"), num("output"));
}

// The engine's scheduler and CPU time with the row's overrides (empty cells keep the engine's).
Status ApplyEngine(const CsvTable& t, size_t i, serve::ServeOptions& o) {
  DLSIM_ASSIGN_OR_RETURN(o.engine, t.Text(i, "engine"));
  DLSIM_ASSIGN_OR_RETURN(const serve::EngineProfile* e, serve::FindEngine(o.engine));
  o.scheduler = e->SchedulerDefaults(o.model, o.gpu.hbm_capacity.ToGiB());
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
  DLSIM_ASSIGN_OR_RETURN(std::string dtype, t.Text(i, "weight_dtype"));
  o.weight_dtype = dtype == "fp8" ? hw::DType::kFp8 : hw::DType::kFp16;
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

// The rows of vllm_public_serving.csv with a value in `column` (ms), each against the row's statistic of
// `metric` of its simulated run (seconds).
Result<ValidationSet> ServingRows(Runner& run, ValidationSet set, const char* column,
                                  const Percentiles& (*metric)(const serve::ServeMetrics&)) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::VllmPublicServingCsv(), "vllm_public_serving.csv"));
  DLSIM_ASSIGN_OR_RETURN(const CsvTable sharegpt,
                         ParseCsv(embedded::ShareGptLlama3LengthsCsv(), "sharegpt_v3_llama3.csv"));
  set.source = Source(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(std::string cell, t.Text(i, column));
    if (cell.empty()) continue;
    ValidationRow row;
    DLSIM_ASSIGN_OR_RETURN(row.label, t.Text(i, "label"));
    DLSIM_ASSIGN_OR_RETURN(row.measured, t.Number(i, column));
    DLSIM_ASSIGN_OR_RETURN(serve::ServeOptions o, ServingScenario(t, i, run.catalogs, sharegpt));
    auto r = serve::Simulate(o, run.catalogs, nullptr);
    row.feasible = r.ok() && r->feasible;
    if (!r.ok()) row.note = r.error().message;
    if (r.ok() && !r->feasible) row.note = r->reason;
    if (row.feasible) {
      DLSIM_ASSIGN_OR_RETURN(double seconds, Statistic(t, i, metric(r->metrics)));
      row.predicted = seconds * 1e3;
    }
    set.rows.push_back(std::move(row));
  }
  return set;
}

}  // namespace

Result<ValidationSet> ServingVllmPublic(Runner& run) {
  return ServingRows(run, {"serving-vllm-public", "TPOT (ms, mean or median)", "", 0.0, {}}, "tpot_ms",
                     [](const serve::ServeMetrics& m) -> const Percentiles& { return m.tpot_s; });
}

Result<ValidationSet> ServingVllmPublicTtft(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-ttft", "TTFT (ms, mean or median)", "", 0.0, {}}, "ttft_ms",
                     [](const serve::ServeMetrics& m) -> const Percentiles& { return m.ttft_s; });
}

Result<ValidationSet> ServingVllmPublicItl(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-itl", "ITL (ms, mean or median)", "", 0.0, {}}, "itl_ms",
                     [](const serve::ServeMetrics& m) -> const Percentiles& { return m.itl_s; });
}

}  // namespace dlsim::validate::internal
