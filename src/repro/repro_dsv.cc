// DSV (Tan et al., arXiv 2502.07590): dynamic sparse attention with low-rank predictors and a hybrid
// sparsity-aware context parallelism for video DiT training, vs dense full attention with standard context
// parallelism at the same scale. Claim: up to 3.02x training throughput, scaling to 128 GPUs and 520K tokens.
//
// The paper's models, GPUs and per-head sparsity levels are not in its abstract (our notes:
// ../shared/docs/research/seed_training.md section 9), so the workload is a published video DiT of the same
// generation: Wan2.1-T2V-14B (40 cross-attention blocks, hidden 5120, 40 heads; data/catalog/models.yaml)
// on 128 H100 (16 DGX nodes), 720p clips of 61 to 573 frames (57,600 to 518,400 latent tokens, the last the
// paper's ~520K). Each point is one clip per data-parallel replica; each system takes its fastest feasible
// context-parallel degree (8..128, dp = 128 / cp) and layout: the baseline dense attention with ring,
// Ulysses or the hybrid (USP) layout; DSV its sparse attention (train/attention_sparsity.h, target 0.9)
// with the dsv layout (train/context_parallel.h). Both are priced by dlsim's step model with the same
// compute and collective models. Choices: docs/reproductions.md, "DSV".
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

constexpr const char* kModel = "wan2.1-t2v-14b";
constexpr int kGpus = 128;
constexpr int kCps[] = {8, 16, 32, 64, 128};
constexpr const char* kBaselineLayouts[] = {"ring", "ulysses", "hybrid"};
// 720p clips: frames -> 1 + (frames - 1) / 4 latent frames of 45 x 80 tokens.
constexpr int kFrames[] = {61, 125, 253, 573};
constexpr double kTarget = 0.9;  // DSV's target sparsity (the paper's levels are not public)
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

// The options of a configuration: 128 GPUs, cp, one clip of `frames` per replica, ZeRO-3, full recomputation.
Result<train::TrainOptions> Options(const ReproEnv& env, int frames, int cp, const std::string& layout,
                                    const train::SparsityOptions* sparsity) {
  const model::ModelSpec& m = **env.catalogs->models.Find(kModel);
  internal::JobSetup j;
  j.model = kModel;
  j.gpus = kGpus;
  j.cp = cp;
  j.seq_len = static_cast<int>(model::LatentTokens(m.dit, {.frames = frames, .height = 720, .width = 1280}));
  j.global_batch = kGpus / cp;
  j.zero = 3;
  j.recompute = train::Recompute::kFull;
  DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o,
                         internal::MakeTrainOptions(*env.catalogs, j, data::DataOptions{}));
  o.data.reset();
  o.parallel.cp_layout = layout;
  if (sparsity) o.sparsity = *sparsity;
  return o;
}

// The fastest feasible (cp, layout) of one system.
Result<Side> Fastest(const ReproEnv& env, int frames, const std::vector<std::string>& layouts,
                     const train::SparsityOptions* sparsity) {
  Side best;
  for (int cp : kCps) {
    for (const std::string& layout : layouts) {
      Result<train::TrainOptions> o = Options(env, frames, cp, layout, sparsity);
      if (!o.ok()) {
        if (o.error().code == ErrorCode::kInfeasible) continue;
        return o.error();
      }
      DLSIM_ASSIGN_OR_RETURN(Side s, RunConfig(env, *o));
      if (!s.feasible) {
        if (!best.feasible) best.reason = s.reason;
        continue;
      }
      if (!best.feasible || s.step_s < best.step_s) best = s;
    }
  }
  return best;
}

train::SparsityOptions Sparsity(double target, double kernel_efficiency = 0.8) {
  train::SparsityOptions s;
  s.target = target;
  s.kernel_efficiency = kernel_efficiency;
  s.seed = kSeed;
  return s;
}

std::string LayoutName(const Side& s) {
  return fmt::format("cp {} {} ({}x{})", s.cp, s.layout, s.ulysses, s.ring);
}

nlohmann::ordered_json Row(const char* what, int frames, int64_t tokens, const train::SparsityOptions& sp,
                           const Side& base, const Side& dsv) {
  const double ratio = internal::Ratio(dsv.tokens_per_s, base.tokens_per_s);
  return {{"setting", what},
          {"frames", frames},
          {"seq_len", tokens},
          {"gpus", kGpus},
          {"target_sparsity", sp.target},
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

ReproResult Describe(internal::Sweep& sweep, double headline) {
  ReproResult out;
  out.name = "dsv";
  out.claim =
      "dynamic sparse attention (low-rank predictors, critical KV pairs only) and hybrid sparsity-aware "
      "context parallelism: up to 3.02x training throughput of video DiTs, 128 GPUs, 520K tokens";
  out.paper_ratio = 3.02;
  out.off_cause =
      "sparsity 0.9 and kernel efficiency 0.8 are assumed: DSV's artifact measures 0.24-0.38 of dense speed "
      "per computed pair at 90% sparsity (32K tokens) and its own 2.7B/30B models, not Wan2.1-14B";
  out.our_ratio = headline;
  out.workload = fmt::format(
      "Wan2.1-T2V-14B on 128 H100 (16 DGX nodes), one 720p clip per replica of 61/125/253/573 frames "
      "(57,600..518,400 latent tokens), ZeRO-3, full recomputation; DSV at target sparsity {} (heads spread "
      "0.08, query blocks 0.2, sparse kernel at 0.8 of dense, predictor rank 16, remote K/V needed = "
      "min(1, 2 x density)); ours = the speedup at 518,400 tokens",
      kTarget);
  out.baseline =
      "dense FlashAttention, each point at its fastest context-parallel degree (8..128) and standard layout "
      "(ring, Ulysses, or the hybrid of Ulysses head groups inside a node x ring)";
  out.notes =
      "The paper's model sizes, GPUs and sparsity levels are not public here; the sparsity distribution "
      "and the sparse kernel's efficiency are assumptions (docs/reproductions.md, DSV; docs/dit.md). At "
      "518,400 tokens, rows 'sparsity' vary the target, 'kernel' halves the sparse kernel's efficiency, "
      "'no-rebalance' runs DSV's sparse attention on the standard hybrid layout (what re-balancing and "
      "the sparse K/V exchange add).";
  out.details = sweep.TakeDetails();
  return out;
}

class DsvReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    internal::Sweep sweep;
    const std::vector<std::string> baseline(std::begin(kBaselineLayouts), std::end(kBaselineLayouts));
    const train::SparsityOptions target = Sparsity(kTarget);
    double headline = 0;
    const model::ModelSpec& m = **env.catalogs->models.Find(kModel);
    auto tokens = [&](int f) {
      return model::LatentTokens(m.dit, {.frames = f, .height = 720, .width = 1280});
    };
    Side base_longest;
    for (int frames : kFrames) {
      DLSIM_ASSIGN_OR_RETURN(Side base, Fastest(env, frames, baseline, nullptr));
      DLSIM_ASSIGN_OR_RETURN(Side dsv, Fastest(env, frames, {"dsv"}, &target));
      nlohmann::ordered_json row = Row("length", frames, tokens(frames), target, base, dsv);
      const double ratio = row["speedup"];
      sweep.Add(std::move(row), ratio);
      headline = ratio;  // the longest clip comes last
      base_longest = base;
    }
    const int longest = kFrames[std::size(kFrames) - 1];
    for (const train::SparsityOptions& s : {Sparsity(0.8), Sparsity(0.95), Sparsity(kTarget, 0.5)}) {
      DLSIM_ASSIGN_OR_RETURN(Side dsv, Fastest(env, longest, {"dsv"}, &s));
      sweep.AddBeside(Row(s.kernel_efficiency < 0.8 ? "kernel" : "sparsity", longest, tokens(longest), s,
                          base_longest, dsv));
    }
    DLSIM_ASSIGN_OR_RETURN(Side plain, Fastest(env, longest, {"hybrid"}, &target));
    sweep.AddBeside(Row("no-rebalance", longest, tokens(longest), target, base_longest, plain));
    return Describe(sweep, headline);
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
