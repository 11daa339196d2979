#include "dlsim/studies/rlhf/iteration.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dlsim/core/rng.h"
#include "dlsim/studies/rlhf/rollout.h"
#include "dlsim/studies/rlhf/serve_rollout_cost.h"
#include "dlsim/train/layout_check.h"
#include "dlsim/train/node_defaults.h"
#include "dlsim/train/simulate.h"

namespace dlsim::rlhf {
namespace {

constexpr int64_t kUnitsPerActorForward = 8;

std::vector<int64_t> DrawOutputs(const IterationOptions& o, std::string_view stream) {
  Rng rng = Rng(o.seed).Stream(stream);
  std::vector<int64_t> out(o.samples);
  for (int64_t& t : out) {
    const double x = SampleLognormal(rng, std::log(o.output_median), o.output_sigma);
    t = std::clamp<int64_t>(std::llround(x), 1, o.output_max);
  }
  return out;
}

Status Check(const IterationOptions& o) {
  if (o.gpus < 1 || o.generation_tp < 1 || o.gpus % o.generation_tp != 0) {
    return Error::InvalidArgument(
        fmt::format("rlhf: generation_tp {} must divide gpus {} (both >= 1)", o.generation_tp, o.gpus));
  }
  if (o.samples < 1 || o.train_steps < 1 || o.samples % o.train_steps != 0) {
    return Error::InvalidArgument(
        fmt::format("rlhf: train_steps {} must divide samples {}", o.train_steps, o.samples));
  }
  if (o.prompt_tokens < 1 || o.output_max < 1 || !(o.output_median > 0) || !(o.output_sigma >= 0)) {
    return Error::InvalidArgument(
        "rlhf: prompt_tokens, output_max, output_median must be > 0, output_sigma >= 0");
  }
  return Status::Ok();
}

Result<train::TrainOptions> TrainSetup(const IterationOptions& o, const model::ModelSpec& m,
                                       const TrainLayout& l, const catalog::Catalogs& cat) {
  train::TrainOptions t;
  t.model = m;
  DLSIM_ASSIGN_OR_RETURN(const hw::NodeSpec* node, cat.hardware.FindNode(o.node));
  train::ApplyNodeDefaults(*node, t.hardware);
  t.hardware.gpu = o.gpu;
  t.hardware.gpus = o.gpus;
  t.training.seq_len = static_cast<int>(o.prompt_tokens + o.output_max);  // padded to the longest
  t.training.global_batch = o.samples / o.train_steps;
  t.training.micro_batch = 1;
  t.parallel.tp = l.tp;
  t.parallel.pp = l.pp;
  t.parallel.sequence_parallel = l.tp > 1;
  DLSIM_RETURN_IF_ERROR(train::LayoutStatus(train::CheckLayout(t)));
  t.parallel.dp = train::DataParallelSize(t);
  return t;
}

struct Rollouts {
  RolloutResult baseline, fused;
  double threshold = 0;
};

Result<Rollouts> RunRollouts(const IterationOptions& o, const hw::GpuSpec& gpu,
                             const catalog::Catalogs& cat) {
  DLSIM_ASSIGN_OR_RETURN(
      std::unique_ptr<ServeRolloutCost> cost,
      MakeServeRolloutCost(
          {o.actor, {o.actor, o.critic, o.critic}, gpu, o.generation_tp, o.prompt_tokens + o.output_max},
          cat));
  RolloutOptions ro{o.gpus / o.generation_tp, o.prompt_tokens, DrawOutputs(o, "rlhf/outputs"), 0,
                    cost->max_batch(o.prompt_tokens + o.output_max)};
  Rollouts r;
  DLSIM_ASSIGN_OR_RETURN(r.baseline, SimulateRollout(ro, *cost));
  RolloutOptions profile = ro;
  profile.output_tokens = DrawOutputs(o, "rlhf/profile");
  DLSIM_ASSIGN_OR_RETURN(r.threshold, ChooseMigrationThreshold(profile, *cost, o.thresholds));
  ro.migration_threshold = r.threshold;
  DLSIM_ASSIGN_OR_RETURN(r.fused, SimulateRollout(ro, *cost));
  return r;
}

// Fuses the two training steps: the pipeline group of one actor pipeline and its critic replicas.
Status FuseTraining(const IterationOptions& o, const train::StepResult& a, const train::StepResult& c,
                    IterationResult& r) {
  const TrainLayout &la = o.actor_layout, &lc = o.critic_layout;
  if (la.tp != lc.tp || la.pp % lc.pp != 0) {
    return Error::Infeasible(
        fmt::format("rlhf: intra-stage fusion needs equal TP and the critic's pp ({}) "
                    "dividing the actor's ({})",
                    lc.pp, la.pp));
  }
  const int batch = o.samples / o.train_steps;
  const int dp_a = o.gpus / (la.tp * la.pp), dp_c = o.gpus / (lc.tp * lc.pp);
  const int m_a = batch / dp_a, m_c = batch / dp_c;
  const double tau_a = (a.breakdown.compute_s + a.breakdown.tp_comm_s) / m_a;
  const double tau_c = (c.breakdown.compute_s + c.breakdown.tp_comm_s) / m_c;
  r.unit_s = tau_a / 3 / kUnitsPerActorForward;
  const auto f_c = std::max<int64_t>(1, std::llround(tau_c / 3 / r.unit_s));
  const double mem_a = 1.0, mem_c = (static_cast<double>(o.critic.hidden) * o.critic.layers / lc.pp) /
                                    (static_cast<double>(o.actor.hidden) * o.actor.layers / la.pp);
  DLSIM_ASSIGN_OR_RETURN(
      r.pipeline, FlexFusionInstance({la.pp, lc.pp, m_a, m_c, kUnitsPerActorForward, f_c, mem_a, mem_c}));
  DLSIM_ASSIGN_OR_RETURN(AnnealResult sa, Anneal(r.pipeline, BestGreedySchedule(r.pipeline), o.anneal));
  r.pipeline_sequential = SequentialMakespan(r.pipeline);
  r.pipeline_fused = std::min(sa.best_cost.makespan, r.pipeline_sequential);
  r.pipeline_lower_bound = LowerBound(r.pipeline);
  const double saved =
      static_cast<double>(r.pipeline_sequential - r.pipeline_fused) * r.unit_s * o.train_steps;
  r.train_fused_s = r.actor_train_s + r.critic_train_s - saved;
  return Status::Ok();
}

IterationResult Infeasible(std::string reason) {
  IterationResult r;
  r.feasible = false;
  r.reason = std::move(reason);
  return r;
}

}  // namespace

Result<IterationResult> SimulateIteration(const IterationOptions& o, const catalog::Catalogs& catalogs) {
  DLSIM_RETURN_IF_ERROR(Check(o));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, catalogs.hardware.FindGpu(o.gpu));
  Result<Rollouts> ro = RunRollouts(o, *gpu, catalogs);
  if (!ro.ok() && ro.error().code == ErrorCode::kInfeasible) return Infeasible(ro.error().message);
  if (!ro.ok()) return ro.error();
  IterationResult r;
  r.generation_s = ro->baseline.generation_end_s;
  r.inference_s = ro->baseline.end_s - ro->baseline.generation_end_s;
  r.threshold = ro->threshold;
  r.rollout_fused_s = ro->fused.end_s;
  r.migrated_samples = ro->fused.migrated_samples;
  r.tail_instances = ro->fused.tail_instances;
  train::StepResult steps[2];
  const TrainLayout layouts[2] = {o.actor_layout, o.critic_layout};
  const model::ModelSpec* models[2] = {&o.actor, &o.critic};
  for (int i = 0; i < 2; ++i) {
    Result<train::TrainOptions> t = TrainSetup(o, *models[i], layouts[i], catalogs);
    if (!t.ok() && t.error().code == ErrorCode::kInfeasible) return Infeasible(t.error().message);
    if (!t.ok()) return t.error();
    DLSIM_ASSIGN_OR_RETURN(steps[i], train::Simulate(*t, catalogs, nullptr));
    if (!steps[i].feasible) return Infeasible(models[i]->name + ": " + steps[i].reason);
  }
  r.actor_train_s = steps[0].step_time_s * o.train_steps;
  r.critic_train_s = steps[1].step_time_s * o.train_steps;
  r.baseline_s = r.generation_s + r.inference_s + r.actor_train_s + r.critic_train_s;
  if (Status s = FuseTraining(o, steps[0], steps[1], r); !s.ok()) {
    if (s.error().code == ErrorCode::kInfeasible) return Infeasible(s.error().message);
    return s.error();
  }
  r.fused_s = r.rollout_fused_s + r.train_fused_s;
  r.speedup = r.baseline_s / r.fused_s;
  return r;
}

}  // namespace dlsim::rlhf
