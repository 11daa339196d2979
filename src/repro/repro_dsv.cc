// DSV (Tan et al., arXiv 2502.07590): dynamic sparse attention with low-rank predictors and a hybrid
// sparsity-aware context parallelism for video DiT training, vs dense full attention with standard context
// parallelism at the same scale. Claim: up to 3.02x training throughput.
//
// The paper's operating point (v1 Sec. 9.2.1, declared before running): its own 2.7B video DiT (Table 1;
// `dsv-2.7b`) on 32 H100 as CP 4 x DP 8, inputs up to 130K tokens, where DSV is 2.73-3.02x faster than
// dense FlashAttention-2 with head-wise (Ulysses) context parallelism; our headline is the longest of those,
// 131,072 tokens. Also 64 GPUs (CP 8 x DP 8, 262,144 tokens; the paper: 2.41-2.93x). Measured inputs:
// the sparsity of the artifact's 2.7B trace (5 of 32 layers dense, the rest averaging 0.974) and the sparse
// kernel's speed per computed pair from the paper's Figure 18 (at 90% sparsity, 2.2-5.7x forward and
// 3.3-4.0x backward over FlashAttention-2: 0.36 of dense). Choices: docs/reproductions.md, "DSV".
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "data_repro.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/step_model.h"

namespace dlsim::repro {
namespace {

constexpr const char* kModel = "dsv-2.7b";
// The points: GPUs, the context-parallel degree (dp = gpus / cp) and tokens per sample.
struct Point {
  int gpus, cp;
  int64_t tokens;
};
constexpr Point kPoints[] = {{32, 4, 32768}, {32, 4, 65536}, {32, 4, 131072}, {64, 8, 262144}};
constexpr size_t kHeadline = 2;                     // 32 GPUs, 131,072 tokens
constexpr const char* kBaselineLayout = "ulysses";  // head-wise first (cp <= 16 heads)
// The artifact's per-layer sparsity trace of the 2.7B model (train_fsdp_lr.py): layers 0-3 and 31 below
// its 0.8 threshold run dense; layers 4-30 span 0.906-0.988, mean 0.974.
constexpr double kTarget = 0.974, kHeadSpread = 0.02;
constexpr int kDenseLayers[] = {0, 1, 2, 3, 31};
// Figure 18 (v1): at 90% sparsity the sparse kernel is 2.2-5.7x faster forward and 3.3-4.0x backward than
// FlashAttention-2, i.e. 0.22-0.57 and 0.33-0.40 of dense speed per computed pair; with backward 2.5x the
// forward's work, about 0.36 for a training step. Sensitivity rows: 0.25 and 0.5.
constexpr double kKernel = 0.36;
constexpr uint64_t kSeed = 7;

// One system at one point: its fastest configuration.
struct Side {
  bool feasible = false;
  std::string reason;
  double step_s = 0, tokens_per_s = 0, attention_share = 0, mean_sparsity = 0, balance = 1;
  double kv_mib = 0;  // K/V MiB the slowest rank receives per layer
  int cp = 0, ulysses = 1, ring = 1;
  std::string layout;
};

// The step and its attention (from the layout policy's pricing of every layer: the built-in ring path
// costs the same, tests/train/dit_train_test.cc) of one configuration.
Result<Side> RunConfig(const ReproEnv& env, const train::TrainOptions& o) {
  Side s;
  s.cp = o.parallel.cp;
  s.layout = o.parallel.cp_layout;
  DLSIM_ASSIGN_OR_RETURN(auto owned, train::MakeStepContext(o, *env.catalogs));
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  DLSIM_ASSIGN_OR_RETURN(train::StepResult r, train::SimulateTrainingStep(o, owned->ctx, schedules, nullptr));
  s.feasible = r.feasible;
  s.reason = r.reason;
  if (!r.feasible) return s;
  s.step_s = r.step_time_s;
  s.tokens_per_s = r.tokens_per_s;
  DLSIM_ASSIGN_OR_RETURN(train::CpAttentionPlan a, train::PlanCpAttention(o, r.plan, owned->ctx));
  double attention = 0, kv = 0;
  for (const train::CpLayerCost& l : a.layers) {
    attention += train::StepAttentionTime(l, o.parallel.recompute).ToSeconds();
    kv += l.kv_bytes.ToMiB() / static_cast<double>(a.layers.size());
    s.balance = std::max(s.balance, l.balance);
  }
  s.attention_share = attention * r.plan.micro_batches / s.step_s;
  s.kv_mib = kv;
  s.mean_sparsity = a.mean_sparsity;
  s.ulysses = a.ulysses;
  s.ring = a.ring;
  return s;
}

// The options of a configuration: the point's GPUs and cp, one sample of its tokens per data-parallel
// replica, ZeRO-3 (the paper's FSDP), full recomputation (its gradient checkpointing).
Result<train::TrainOptions> Options(const ReproEnv& env, const Point& p, const std::string& layout,
                                    const train::SparsityOptions* sparsity) {
  internal::JobSetup j;
  j.model = kModel;
  j.gpus = p.gpus;
  j.cp = p.cp;
  j.seq_len = static_cast<int>(p.tokens);
  j.global_batch = p.gpus / p.cp;
  j.zero = 3;
  j.recompute = train::Recompute::kFull;
  DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o,
                         internal::MakeTrainOptions(*env.catalogs, j, data::DataOptions{}));
  o.data.reset();
  o.parallel.cp_layout = layout;
  if (sparsity) o.sparsity = *sparsity;
  return o;
}

// One system at one point, on the layout given (the paper fixes cp: no search).
Result<Side> RunSide(const ReproEnv& env, const Point& p, const std::string& layout,
                     const train::SparsityOptions* sparsity) {
  DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o, Options(env, p, layout, sparsity));
  return RunConfig(env, o);
}

train::SparsityOptions Sparsity(double target, double kernel_efficiency, bool dense_layers) {
  train::SparsityOptions s;
  s.target = target;
  s.head_spread = kHeadSpread;
  s.kernel_efficiency = kernel_efficiency;
  s.seed = kSeed;
  if (dense_layers) s.dense_layers.assign(std::begin(kDenseLayers), std::end(kDenseLayers));
  return s;
}

std::string LayoutName(const Side& s) {
  return fmt::format("cp {} {} ({}x{})", s.cp, s.layout, s.ulysses, s.ring);
}

nlohmann::ordered_json Row(const char* what, const Point& p, const train::SparsityOptions& sp,
                           const Side& base, const Side& dsv) {
  const double ratio =
      base.feasible && dsv.feasible ? internal::Ratio(dsv.tokens_per_s, base.tokens_per_s) : 0;
  return {{"setting", what},
          {"gpus", p.gpus},
          {"seq_len", p.tokens},
          {"target_sparsity", sp.target},
          {"dense_layers", sp.dense_layers.size()},
          {"kernel_efficiency", sp.kernel_efficiency},
          {"mean_sparsity", dsv.mean_sparsity},
          {"baseline_layout", LayoutName(base)},
          {"dsv_layout", LayoutName(dsv)},
          {"baseline_attention_share", base.attention_share},
          {"dsv_attention_share", dsv.attention_share},
          {"dsv_balance_max", dsv.balance},
          {"baseline_kv_mib_per_layer", base.kv_mib},
          {"dsv_kv_mib_per_layer", dsv.kv_mib},
          {"baseline_step_s", base.step_s},
          {"dsv_step_s", dsv.step_s},
          {"speedup", ratio}};
}

ReproResult Describe(internal::Sweep& sweep) {
  ReproResult out;
  out.name = "dsv";
  out.claim =
      "dynamic sparse attention (low-rank predictors, critical KV pairs only) and hybrid sparsity-aware "
      "context parallelism: up to 3.02x training throughput of video DiTs";
  out.paper_ratio = 3.02;
  out.our_ratio = sweep.ratio(kHeadline);
  out.operating_point =
      "the paper's 2.7B video DiT on 32 H100 as CP 4 x DP 8 at its longest input there (131,072 tokens): "
      "2.73-3.02x over dense FlashAttention-2 with head-wise CP (v1 Sec. 9.2.1)";
  out.off_cause =
      "the paper gives ranges, not per-bar values; ours at 131,072 tokens with the artifact's sparsity trace "
      "and the Figure 18 kernel speed";
  out.workload = fmt::format(
      "dsv-2.7b (32 layers, 16 heads of 128, GeGLU), one sample per replica, ZeRO-3, full recomputation; 32 "
      "H100 at cp 4 (32K/64K/128K tokens) and 64 at cp 8 (256K); DSV sparsity {} on 27 layers (5 dense, the "
      "artifact's trace), head spread {}, sparse kernel {} of dense per pair (Figure 18), predictor rank 16",
      kTarget, kHeadSpread, kKernel);
  out.baseline =
      "dense FlashAttention with head-wise (Ulysses) context parallelism at the same cp, as the paper";
  out.notes =
      "Beside rows at 131,072 tokens: 'kernel' at 0.25 / 0.5 of dense per pair (the Figure 18 range), "
      "'uniform' the same mean sparsity on every layer (no dense layers), 'no-rebalance' DSV's sparse "
      "attention on the Ulysses layout, 'assumed' our earlier inputs (0.9 everywhere, kernel 0.8). See "
      "docs/reproductions.md, DSV.";
  out.details = sweep.TakeDetails();
  return out;
}

// The beside rows at the headline point: kernel speed, dense layers, layout and the earlier assumptions.
Status AddSensitivity(const ReproEnv& env, const Side& base, internal::Sweep& sweep) {
  const Point& p = kPoints[kHeadline];
  struct Variant {
    const char* what;
    train::SparsityOptions sparsity;
    const char* layout;
  };
  const Variant variants[] = {{"kernel", Sparsity(kTarget, 0.25, true), "dsv"},
                              {"kernel", Sparsity(kTarget, 0.5, true), "dsv"},
                              {"uniform", Sparsity(kTarget * 27 / 32, kKernel, false), "dsv"},
                              {"no-rebalance", Sparsity(kTarget, kKernel, true), kBaselineLayout},
                              {"assumed", Sparsity(0.9, 0.8, false), "dsv"}};
  for (const Variant& v : variants) {
    DLSIM_ASSIGN_OR_RETURN(Side dsv, RunSide(env, p, v.layout, &v.sparsity));
    sweep.AddBeside(Row(v.what, p, v.sparsity, base, dsv));
  }
  return Status::Ok();
}

class DsvReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    internal::Sweep sweep;
    const train::SparsityOptions measured = Sparsity(kTarget, kKernel, true);
    Side base_headline;
    for (size_t i = 0; i < std::size(kPoints); ++i) {
      DLSIM_ASSIGN_OR_RETURN(Side base, RunSide(env, kPoints[i], kBaselineLayout, nullptr));
      DLSIM_ASSIGN_OR_RETURN(Side dsv, RunSide(env, kPoints[i], "dsv", &measured));
      nlohmann::ordered_json row = Row("length", kPoints[i], measured, base, dsv);
      const double ratio = row["speedup"];
      sweep.Add(std::move(row), ratio);
      if (i == kHeadline) base_headline = base;
    }
    DLSIM_RETURN_IF_ERROR(AddSensitivity(env, base_headline, sweep));
    ReproResult out = Describe(sweep);
    // The paper gives each scale's range only; we read its top at the scale's longest input.
    out.points = {{"32 GPUs (cp 4 x dp 8), 131,072 tokens: top of 2.73-3.02x", 3.02, sweep.ratio(kHeadline),
                   "paper: range only"},
                  {"64 GPUs (cp 8 x dp 8), 262,144 tokens: top of 2.41-2.93x", 2.93, sweep.ratio(3),
                   "paper: range only"}};
    return out;
  }
};

}  // namespace

void RegisterDsv(ReproRegistry& reg) {
  reg.RegisterBuiltin("dsv",
                      "DSV (arXiv 2502.07590): sparse attention + sparsity-aware hybrid CP for video DiT vs "
                      "dense attention with standard CP, up to 3.02x",
                      [] { return std::make_unique<DsvReproduction>(); });
}

}  // namespace dlsim::repro
