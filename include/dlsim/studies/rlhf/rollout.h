// The generation and inference stages of one RLHF iteration, and RLHFuse's inter-stage fusion.
//
// Generation: the actor serves the iteration's prompts on `instances` generation instances; each
// instance prefills its prompts together and decodes until its longest output is done (the batch
// shrinks as samples finish). Inference: the reference, reward and critic forward passes over every
// finished sample (prompt + output), a fixed time per token on one instance.
//  - Baseline: inference starts on all instances when the last sample is generated.
//  - Fused (migration_threshold > 0): when the unfinished samples fall to threshold x samples, they
//    are consolidated onto ceil(unfinished / max_tail_batch) instances (their KV caches copied over
//    the interconnect); the other instances start inference at once on the finished samples, and
//    later samples join the inference queue as they finish; the tail instances join inference when
//    the tail is done. Inference is a divisible queue served by the instances that are free.
//
//   rlhf::RolloutResult r = rlhf::SimulateRollout(options, cost);   // Result<>
//   r->end_s;   // generation + inference done
//
// Thread-safe for distinct arguments.
#ifndef DLSIM_STUDIES_RLHF_ROLLOUT_H_
#define DLSIM_STUDIES_RLHF_ROLLOUT_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::rlhf {

// Prices of one generation instance (all its GPUs together), in seconds.
class RolloutCost {
 public:
  virtual ~RolloutCost() = default;
  // One decode iteration of `batch` sequences whose KV lengths add up to `context` tokens.
  virtual double DecodeSeconds(int64_t batch, int64_t context) const = 0;
  // Prefill of `batch` prompts of `prompt` tokens each.
  virtual double PrefillSeconds(int64_t batch, int64_t prompt) const = 0;
  // Reference + reward + critic forwards of one token of a finished sample.
  virtual double InferenceSecondsPerToken() const = 0;
  // Copying one token's KV cache to another instance.
  virtual double MigrationSecondsPerToken() const = 0;
};

// Fixed prices, for tests: decode = per_iteration + per_sequence x batch.
class ConstantRolloutCost final : public RolloutCost {
 public:
  ConstantRolloutCost(double per_iteration, double per_sequence, double prefill_per_token,
                      double inference_per_token, double migration_per_token)
      : it_(per_iteration),
        seq_(per_sequence),
        pre_(prefill_per_token),
        inf_(inference_per_token),
        mig_(migration_per_token) {}
  double DecodeSeconds(int64_t batch, int64_t) const override { return it_ + seq_ * batch; }
  double PrefillSeconds(int64_t batch, int64_t prompt) const override { return pre_ * batch * prompt; }
  double InferenceSecondsPerToken() const override { return inf_; }
  double MigrationSecondsPerToken() const override { return mig_; }

 private:
  double it_, seq_, pre_, inf_, mig_;
};

struct RolloutOptions {
  int instances = 1;
  int64_t prompt_tokens = 512;
  std::vector<int64_t> output_tokens;  // one per sample; sample i goes to instance i mod instances
  double migration_threshold = 0;      // fraction of the samples in [0, 1); 0 = no fusion (baseline)
  int64_t max_tail_batch = 64;         // sequences one tail instance takes after the migration
};

struct RolloutResult {
  double generation_end_s = 0;  // last sample generated
  double inference_end_s = 0;   // = end_s
  double end_s = 0;
  double migrate_at_s = 0;  // 0 without migration
  double migration_s = 0;   // KV copy time
  int migrated_samples = 0;
  int tail_instances = 0;
  double inference_s = 0;  // total inference work, instance-seconds
};

// Errors: instances < 1, no samples, an output < 1 token, prompt < 1, threshold outside [0, 1),
// max_tail_batch < 1.
Result<RolloutResult> SimulateRollout(const RolloutOptions& o, const RolloutCost& cost);

// The cost model's choice of threshold: the candidate whose simulated rollout ends first on a
// profiling batch (`o` with its lengths, e.g. drawn from the same distribution with another seed);
// ties go to the smaller threshold. Errors as SimulateRollout, or an empty candidate list.
Result<double> ChooseMigrationThreshold(const RolloutOptions& o, const RolloutCost& cost,
                                        const std::vector<double>& candidates);

}  // namespace dlsim::rlhf

#endif  // DLSIM_STUDIES_RLHF_ROLLOUT_H_
