// Flash-LLM (Xia et al., VLDB 2024, arXiv 2309.10285): unstructured-sparse weights on tensor
// cores, "up to 3.8x / 3.6x tokens per GPU-second vs DeepSpeed-Inference / FasterTransformer".
//
// OPT-30B/66B/175B on A100-80GB, FP16, batches of 8-64 requests arriving together, 64-token
// prompts and 512 generated tokens, through the serving simulator, at the GPU counts the paper
// ran (Flash-LLM 1/2/4, FasterTransformer 2/4/8). Flash-LLM: the weights at 80% sparsity in
// Tiled-CSL (cost/sparse_gemm.h). Ratio = tokens per GPU-second, Flash-LLM over FT; the headline
// is the paper's own best-against-best point. Choices: docs/reproductions.md, "Flash-LLM".
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/repro/reproduction.h"
#include "dlsim/serve/simulate.h"
#include "sweep.h"

namespace dlsim::repro {
namespace {

// The paper's Section 6.3 setup (PVLDB 17(2), Figs 14-16 and their text): each model on the GPU
// counts the paper ran, Flash-LLM on half the baseline's GPUs, FasterTransformer (the faster baseline
// everywhere) on its own count; batch 8-64.
struct ModelCase {
  const char* name;
  int flash_gpus;              // Flash-LLM's GPUs
  int ft_gpus;                 // FasterTransformer's GPUs for the same-batch comparison
  double paper_same_batch[4];  // the text's Flash-LLM / FT tokens per GPU-second at batch 8, 16, 32, 64
};
constexpr ModelCase kModels[] = {
    {"opt-30b", 1, 2, {1.75, 1.70, 1.55, 1.41}},
    {"opt-66b", 2, 4, {1.68, 1.61, 1.58, 1.45}},
    {"opt-175b", 4, 8, {2.0, 1.9, 1.7, 1.5}},
};
constexpr int kBatches[] = {8, 16, 32, 64};
constexpr double kSparsity = 0.8;
constexpr int kPrompt = 64, kOutput = 512;
// FT and Flash-LLM allocate what they use (no vLLM-style reservation): Table 1 has Flash-LLM's OPT-30B
// at batch 64 peaking at 77.1 GB of one 80 GB A100, 96% of HBM. We keep 3% free for the CUDA context.
constexpr double kMemoryMargin = 0.03;
// The headline (Sec. 6.3.2): OPT-66B on two GPUs, Flash-LLM at batch 64 (522 tokens per GPU-second)
// against FasterTransformer at batch 16, the largest that fits it on two GPUs (144): 3.6x.
constexpr const char* kHeadlineModel = "opt-66b";
constexpr int kHeadlineGpus = 2, kHeadlineFlashBatch = 64, kHeadlineFtBatch = 16;

struct Run {
  bool feasible = false;
  double tokens_per_gpu_s = 0;
  double tpot_ms = 0;
  std::string reason;  // why not feasible
};

serve::ServeOptions Options(const model::ModelSpec& m, const hw::GpuSpec& g, int batch, int tp,
                            double sparsity) {
  serve::ServeOptions o;
  o.name = "flash-llm";
  o.model = m;
  o.gpu = g;
  o.hardware.tp = tp;
  o.hardware.memory_margin = kMemoryMargin;
  o.weight_sparsity = sparsity;
  o.workload.arrival = serve::ArrivalKind::kTrace;
  o.workload.trace.assign(batch, serve::TraceEntry{0.0, kPrompt, kOutput});
  o.workload.requests = batch;
  o.scheduler.max_batch_size = batch;
  o.scheduler.max_batched_tokens = int64_t{batch} * kPrompt;
  o.slo.tpot_s = 1e3;
  o.slo.ttft_s = 1e3;
  return o;
}

// One engine at a fixed GPU count; infeasible when it does not fit or must preempt (the paper's
// engines hold the whole batch: out of memory instead).
Result<Run> RunAt(const ReproEnv& env, const model::ModelSpec& m, const hw::GpuSpec& g, int batch, int tp,
                  double sparsity) {
  auto r = serve::Simulate(Options(m, g, batch, tp, sparsity), *env.catalogs, nullptr);
  if (!r.ok()) {
    if (r.error().code != ErrorCode::kInfeasible) return r.error();
    return Run{false, 0, 0, r.error().message};
  }
  if (!r->feasible) return Run{false, 0, 0, r->reason};
  if (r->metrics.preemptions > 0) return Run{false, 0, 0, "the batch does not fit at once (preemptions)"};
  return Run{true, r->metrics.throughput_tokens_per_s / tp, r->metrics.tpot_s.p50 * 1e3, ""};
}

double Rounded(double v, double unit) { return std::round(v / unit) * unit; }

nlohmann::ordered_json Row(const ModelCase& c, int batch, const Run& ft, const Run& flash, double ratio,
                           double paper) {
  return {{"model", c.name},
          {"batch", batch},
          {"ft_gpus", c.ft_gpus},
          {"flash_gpus", c.flash_gpus},
          {"ft_tok_per_gpu_s", Rounded(ft.tokens_per_gpu_s, 0.1)},
          {"flash_tok_per_gpu_s", Rounded(flash.tokens_per_gpu_s, 0.1)},
          {"ft_tpot_ms", Rounded(ft.tpot_ms, 0.01)},
          {"flash_tpot_ms", Rounded(flash.tpot_ms, 0.01)},
          {"ratio", Rounded(ratio, 0.001)},
          {"paper_ratio", paper}};
}

// The same-batch comparison of Figs 14-16 point for point.
Status AddPoints(const ReproEnv& env, const hw::GpuSpec& g, internal::Sweep& sweep,
                 std::vector<ReproPoint>& points) {
  for (const ModelCase& c : kModels) {
    DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, env.catalogs->models.Find(c.name));
    for (size_t b = 0; b < std::size(kBatches); ++b) {
      DLSIM_ASSIGN_OR_RETURN(const Run ft, RunAt(env, *m, g, kBatches[b], c.ft_gpus, 0.0));
      DLSIM_ASSIGN_OR_RETURN(const Run flash, RunAt(env, *m, g, kBatches[b], c.flash_gpus, kSparsity));
      const double ratio =
          ft.feasible && flash.feasible ? internal::Ratio(flash.tokens_per_gpu_s, ft.tokens_per_gpu_s) : 0;
      sweep.Add(Row(c, kBatches[b], ft, flash, ratio, c.paper_same_batch[b]), ratio);
      const std::string why = !flash.feasible ? "Flash-LLM: " + flash.reason
                              : !ft.feasible  ? "FT: " + ft.reason
                                              : "";
      points.push_back(
          {fmt::format("{} batch {} ({} vs {} GPUs)", c.name, kBatches[b], c.flash_gpus, c.ft_gpus),
           c.paper_same_batch[b], Rounded(ratio, 0.001), why});
    }
  }
  return Status::Ok();
}

// The headline: the paper's best-against-best on two GPUs (different batches, as the paper compares).
Result<double> Headline(const ReproEnv& env, const hw::GpuSpec& g, std::string& detail) {
  DLSIM_ASSIGN_OR_RETURN(const model::ModelSpec* m, env.catalogs->models.Find(kHeadlineModel));
  DLSIM_ASSIGN_OR_RETURN(const Run flash, RunAt(env, *m, g, kHeadlineFlashBatch, kHeadlineGpus, kSparsity));
  DLSIM_ASSIGN_OR_RETURN(const Run ft, RunAt(env, *m, g, kHeadlineFtBatch, kHeadlineGpus, 0.0));
  DLSIM_ASSIGN_OR_RETURN(const Run ft_next, RunAt(env, *m, g, 2 * kHeadlineFtBatch, kHeadlineGpus, 0.0));
  detail = fmt::format(
      "headline: Flash-LLM {:.0f} tokens per GPU-second at batch {} (paper 522), FT {:.0f} at batch {} "
      "(paper 144); FT at batch {} on {} GPUs {}",
      flash.tokens_per_gpu_s, kHeadlineFlashBatch, ft.tokens_per_gpu_s, kHeadlineFtBatch,
      2 * kHeadlineFtBatch, kHeadlineGpus,
      ft_next.feasible ? "fits (the paper: out of memory)" : "does not fit (as in the paper)");
  return ft.feasible && flash.feasible ? internal::Ratio(flash.tokens_per_gpu_s, ft.tokens_per_gpu_s) : 0.0;
}

class FlashLlmReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* g, env.catalogs->hardware.FindGpu("a100-sxm4-80gb"));
    ReproResult out;
    internal::Sweep sweep;
    DLSIM_RETURN_IF_ERROR(AddPoints(env, *g, sweep, out.points));
    std::string headline;
    DLSIM_ASSIGN_OR_RETURN(out.our_ratio, Headline(env, *g, headline));
    out.name = "flash-llm";
    out.claim = "Flash-LLM: up to 3.8x (DeepSpeed) and 3.6x (FasterTransformer) tokens per GPU-second on OPT";
    out.paper_ratio = 3.6;
    out.operating_point =
        "OPT-66B on two A100-80GB (Sec. 6.3.2): Flash-LLM at batch 64 against FasterTransformer at batch 16, "
        "the largest that fits it on two GPUs (522 vs 144 tokens per GPU-second)";
    out.off_cause =
        "Flash-LLM's sparse decode is priced 13-36% faster than the paper measures (dense FT within 0-14%)";
    out.workload =
        "OPT-30B/66B/175B, A100-80GB, FP16, 80% unstructured sparsity (Tiled-CSL), 64-token prompts, 512 "
        "output "
        "tokens, batch 8-64 arriving together, at the paper's GPU counts (Flash-LLM 1/2/4, FT 2/4/8)";
    out.baseline =
        "FasterTransformer, the faster of the paper's two baselines everywhere: dense FP16 weights, the "
        "whole "
        "batch at once";
    out.notes = fmt::format(
        "{}. Points: the paper's same-batch ratios (Flash-LLM on half FT's GPUs), geometric mean {:.2f}x of "
        "ours; 3% of HBM kept free (the paper's runs reach 96%). See docs/reproductions.md, Flash-LLM.",
        headline, sweep.ratios().GeoMean());
    out.details = sweep.TakeDetails();
    return out;
  }
};

}  // namespace

void RegisterFlashLlm(ReproRegistry& reg) {
  reg.RegisterBuiltin(
      "flash-llm",
      "Flash-LLM (VLDB 2024): 80%-sparse OPT weights, load-as-sparse compute-as-dense, vs dense; "
      "up to 3.6-3.8x tokens per GPU-second",
      [] { return std::make_unique<FlashLlmReproduction>(); });
}

}  // namespace dlsim::repro
