// One RLHF (PPO) iteration: generation and inference (rollout.h, priced by the serving module) and
// the actor and critic training steps (priced by the training step simulator), unfused and with
// RLHFuse's two fusions.
//  - Baseline: generation on all GPUs, then inference on all GPUs, then the actor's training step,
//    then the critic's, each on all GPUs.
//  - RLHFuse: generation and inference fused by migrating the long tail (the threshold chosen by
//    the rollout cost model on a profiling batch of lengths drawn with another seed), and the two
//    training steps fused into one bidirectional pipeline (fused_pipeline.h) whose schedule is found
//    by simulated annealing; the gradient reduction and optimizer of both follow it.
// The fused pipeline's times per stage and micro-batch come from each step's simulated compute and
// tensor-parallel time on its critical rank: (compute + tp) / micro-batches, split 1:2 between
// forward and backward as in FlexFusion, rounded to time units of forward_actor / 8.
//
//   rlhf::IterationOptions o;  o.actor = *models.Find("llama2-13b").value();  ...
//   Result<rlhf::IterationResult> r = rlhf::SimulateIteration(o, catalogs);
//   r->speedup;   // baseline_s / fused_s
//
// Thread-safe for distinct arguments.
#ifndef DLSIM_STUDIES_RLHF_ITERATION_H_
#define DLSIM_STUDIES_RLHF_ITERATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/studies/rlhf/fused_pipeline.h"
#include "dlsim/studies/rlhf/pipeline_anneal.h"

namespace dlsim::rlhf {

struct TrainLayout {
  int tp = 1, pp = 1;  // dp = gpus / (tp * pp)
};

struct IterationOptions {
  model::ModelSpec actor;   // the reference model has the actor's shape
  model::ModelSpec critic;  // the reward model has the critic's shape
  std::string gpu = "h100-sxm5-80gb";
  std::string node = "dgx-h100";
  int gpus = 32;
  int generation_tp = 2;  // GPUs per generation instance
  int samples = 512;      // prompts per iteration
  int train_steps = 4;    // PPO mini-batch updates per iteration, each over samples / train_steps
  int64_t prompt_tokens = 512;
  // Output lengths: lognormal (median, sigma), clamped to [1, output_max]. Assumed, not published.
  double output_median = 256, output_sigma = 1.0;
  int64_t output_max = 1536;
  uint64_t seed = 1;
  std::vector<double> thresholds{0.0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3};  // the cost model's candidates
  TrainLayout actor_layout{4, 4}, critic_layout{4, 2};                   // equal TP: fused stages share GPUs
  AnnealOptions anneal{};
};

struct IterationResult {
  bool feasible = true;
  std::string reason;
  // Baseline, seconds.
  double generation_s = 0, inference_s = 0, actor_train_s = 0, critic_train_s = 0,
         baseline_s = 0;  // train: all steps
  // RLHFuse.
  double threshold = 0;        // chosen by the cost model on the profiling batch
  double rollout_fused_s = 0;  // generation + inference
  int migrated_samples = 0, tail_instances = 0;
  double train_fused_s = 0;  // all steps
  double fused_s = 0;
  double speedup = 0;  // baseline_s / fused_s
  // The fused training pipeline (one pipeline group), in time units of unit_s seconds.
  double unit_s = 0;
  FusedProblem pipeline;
  int64_t pipeline_sequential = 0, pipeline_fused = 0, pipeline_lower_bound = 0;
};

// Infeasible (a result with the reason): a layout that does not divide or does not fit, the
// critic's pp not dividing the actor's. Errors: unknown GPU or node, bad counts.
Result<IterationResult> SimulateIteration(const IterationOptions& o, const catalog::Catalogs& catalogs);

}  // namespace dlsim::rlhf

#endif  // DLSIM_STUDIES_RLHF_ITERATION_H_
