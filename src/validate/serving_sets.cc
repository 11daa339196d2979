// serving-vllm-public and serving-vllm-public-ttft: published vLLM runs
// (data/validation/vllm_public_serving.csv), each a serve scenario of its engine release; the metrics are
// mean TPOT and, where the run published it, mean TTFT. Choices the sources leave open are the CSV's columns
// (docs/validation.md, "serving-vllm-public").
#include <cmath>
#include <string>

#include "dlsim/core/csv.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/simulate.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view VllmPublicServingCsv();
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

Result<serve::ServeOptions> ServingScenario(const CsvTable& t, size_t i, const catalog::Catalogs& cat) {
  auto num = [&](const char* c) { return *t.Number(i, c); };
  serve::ServeOptions o;
  DLSIM_ASSIGN_OR_RETURN(o.name, t.Text(i, "label"));
  DLSIM_ASSIGN_OR_RETURN(std::string model, t.Text(i, "model"));
  DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, cat.models.Find(model));
  o.model = *m;
  DLSIM_ASSIGN_OR_RETURN(std::string gpu, t.Text(i, "gpu"));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, cat.hardware.FindGpu(gpu));
  o.gpu = *g;
  o.hardware.tp = static_cast<int>(num("tp"));
  DLSIM_ASSIGN_OR_RETURN(std::string dtype, t.Text(i, "weight_dtype"));
  o.weight_dtype = dtype == "fp8" ? hw::DType::kFp8 : hw::DType::kFp16;
  DLSIM_RETURN_IF_ERROR(ApplyEngine(t, i, o));
  o.workload = Workload(static_cast<int64_t>(num("requests")), num("rate"), num("prompt"), num("output"));
  return o;
}

// The rows of vllm_public_serving.csv with a value in `column` (ms), each against `metric_s` of its simulated
// run (seconds).
Result<ValidationSet> ServingRows(Runner& run, ValidationSet set, const char* column,
                                  double (*metric_s)(const serve::ServeMetrics&)) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::VllmPublicServingCsv(), "vllm_public_serving.csv"));
  set.source = Source(t);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(std::string cell, t.Text(i, column));
    if (cell.empty()) continue;
    ValidationRow row;
    DLSIM_ASSIGN_OR_RETURN(row.label, t.Text(i, "label"));
    DLSIM_ASSIGN_OR_RETURN(row.measured, t.Number(i, column));
    DLSIM_ASSIGN_OR_RETURN(serve::ServeOptions o, ServingScenario(t, i, run.catalogs));
    auto r = serve::Simulate(o, run.catalogs, nullptr);
    row.feasible = r.ok() && r->feasible;
    if (!r.ok()) row.note = r.error().message;
    if (r.ok() && !r->feasible) row.note = r->reason;
    if (row.feasible) row.predicted = metric_s(r->metrics) * 1e3;
    set.rows.push_back(std::move(row));
  }
  return set;
}

}  // namespace

Result<ValidationSet> ServingVllmPublic(Runner& run) {
  return ServingRows(run, {"serving-vllm-public", "mean TPOT (ms)", "", 0.0, {}}, "tpot_ms",
                     [](const serve::ServeMetrics& m) { return m.tpot_s.mean; });
}

Result<ValidationSet> ServingVllmPublicTtft(Runner& run) {
  return ServingRows(run, {"serving-vllm-public-ttft", "mean TTFT (ms)", "", 0.0, {}}, "ttft_ms",
                     [](const serve::ServeMetrics& m) { return m.ttft_s.mean; });
}

}  // namespace dlsim::validate::internal
