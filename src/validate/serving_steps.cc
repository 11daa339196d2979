// serving-h200-steps: single serving iterations of Llama 3.1 8B on one H200, measured by the project
// (data/validation/h200_serving_steps.csv), against the serving cost model's GPU time of the same batch
// (serve/iteration_cost.h, engine `default`: no engine CPU time; prefill attention as PyTorch's SDPA chose
// it, `attention_backend: default`). Decode steps are the CUDA-graph replays (the GPU floor an engine with
// CUDA graphs approaches); prefills ran eagerly, so a prefill whose GPU work is shorter than the Python
// forward's issue time measures the host, not the GPU: such rows are scored against the larger of the two
// (the host time is the eager decode steps' median, measured in the same run, which launch the same operators
// per layer).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/serve/setup.h"
#include "held_out_sets.h"

namespace dlsim::embedded {
std::string_view H200ServingStepsCsv();
}  // namespace dlsim::embedded

namespace dlsim::validate::internal {
namespace {

constexpr const char* kFile = "h200_serving_steps.csv";

struct StepRow {
  std::string phase;
  int64_t batch = 0;
  int64_t tokens = 0;
  double gpu_ms = 0;    // decode: the CUDA-graph replay
  double eager_ms = 0;  // the step launched from Python
};

Result<std::vector<StepRow>> ParseRows(const CsvTable& t) {
  std::vector<StepRow> rows;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    StepRow r;
    DLSIM_ASSIGN_OR_RETURN(r.phase, t.Text(i, "phase"));
    DLSIM_ASSIGN_OR_RETURN(double batch, t.Number(i, "batch"));
    DLSIM_ASSIGN_OR_RETURN(double tokens, t.Number(i, "tokens"));
    DLSIM_ASSIGN_OR_RETURN(r.eager_ms, t.Number(i, "eager_ms"));
    r.batch = static_cast<int64_t>(batch);
    r.tokens = static_cast<int64_t>(tokens);
    if (r.phase == "decode") {
      DLSIM_ASSIGN_OR_RETURN(r.gpu_ms, t.Number(i, "gpu_ms"));
    } else if (r.phase != "prefill") {
      return Error::Parse(std::string(kFile) + ": phase is 'prefill' or 'decode', found '" + r.phase + "'");
    }
    if (r.batch < 1 || r.tokens < 1 || !(r.eager_ms > 0) || (r.phase == "decode" && !(r.gpu_ms > 0)))
      return Error::Parse(std::string(kFile) + ": row " + std::to_string(i + 1) +
                          " needs batch, tokens >= 1 and positive times");
    rows.push_back(r);
  }
  return rows;
}

// The eager forward's host issue time: the median eager decode step (host-bound at every batch measured).
double HostFloorMs(const std::vector<StepRow>& rows) {
  std::vector<double> eager;
  for (const StepRow& r : rows)
    if (r.phase == "decode") eager.push_back(r.eager_ms);
  if (eager.empty()) return 0;
  std::nth_element(eager.begin(), eager.begin() + eager.size() / 2, eager.end());
  return eager[eager.size() / 2];
}

// The batch of row `r`: `batch` whole prompts of `tokens` (one logit each), or `batch` decodes over
// `tokens` KV tokens each.
serve::BatchShape Shape(const StepRow& r) {
  if (r.phase == "decode") return serve::BatchShape::Decode(r.batch, r.batch * r.tokens);
  serve::BatchShape b;
  b.prefill_tokens = r.batch * r.tokens;
  b.prefill_pairs =
      static_cast<double>(r.batch) * static_cast<double>(r.tokens) * static_cast<double>(r.tokens + 1) / 2.0;
  b.prefill_requests = r.batch;
  b.logits = r.batch;
  return b;
}

std::string Label(const StepRow& r) {
  return r.phase + " b" + std::to_string(r.batch) + (r.phase == "decode" ? " ctx" : " prompt") +
         std::to_string(r.tokens) + (r.phase == "decode" ? " (CUDA graph)" : " (eager)");
}

}  // namespace

Result<ValidationSet> ServingH200Steps(Runner& run) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(embedded::H200ServingStepsCsv(), kFile));
  DLSIM_ASSIGN_OR_RETURN(std::vector<StepRow> rows, ParseRows(t));
  serve::ServeOptions o;
  DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, run.catalogs.models.Find("llama3.1-8b"));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, run.catalogs.hardware.FindGpu("h200-sxm-141gb"));
  o.model = *m;
  o.gpu = *g;
  o.attention_backend = cost::AttentionBackend::kPytorchDefault;  // the decoder's SDPA: PyTorch's choice
  o.kernels = model::Kernels::kEager;  // a plain PyTorch decoder: one kernel per tensor operation
  DLSIM_ASSIGN_OR_RETURN(auto env, serve::MakeServeEnvironment(run.catalogs.compute, run.catalogs.network));
  DLSIM_ASSIGN_OR_RETURN(auto cost, serve::MakeCostModel(o, *env));
  ValidationSet set{"serving-h200-steps", "iteration time (ms)", Source(t), 0.0, {}};
  const double host_ms = HostFloorMs(rows);
  for (const StepRow& r : rows) {
    const double gpu_ms = cost->Time(Shape(r)).Total(o.model.layers).ToMillis();
    ValidationRow row{Label(r), r.phase == "decode" ? r.gpu_ms : r.eager_ms, gpu_ms, true, "", nullptr};
    if (r.phase == "prefill" && gpu_ms < host_ms) {
      row.predicted = host_ms;
      row.note = "host-bound: the eager forward's issue time";
    }
    set.rows.push_back(std::move(row));
  }
  return set;
}

}  // namespace dlsim::validate::internal
