// RolloutCost priced by the serving module: the actor's decode and prefill iterations from
// serve's profiled iteration cost model (Vidur profiles where the GPU/model/TP is profiled, the
// roofline model otherwise) on one generation instance of `tp` GPUs; inference (reference, reward,
// critic) as prefill passes of `inference_seq`-token sequences through each inference model's cost
// model on the same instance; migration as each token's KV bytes over the instance's NVLink (PCIe
// when it has none).
//
//   auto cost = rlhf::MakeServeRolloutCost({.actor = m13b, .inference = {m13b, m7b, m7b}, .gpu = h100,
//                                           .tp = 2}, catalogs);   // Result<unique_ptr<ServeRolloutCost>>
//   (*cost)->max_batch(2048);   // sequences of 2048 tokens whose KV fits one instance
//
// Immutable after construction; thread-safe.
#ifndef DLSIM_STUDIES_RLHF_SERVE_ROLLOUT_COST_H_
#define DLSIM_STUDIES_RLHF_SERVE_ROLLOUT_COST_H_

#include <memory>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/offload.h"
#include "dlsim/studies/rlhf/rollout.h"

namespace dlsim::rlhf {

struct ServeRolloutInputs {
  model::ModelSpec actor;
  std::vector<model::ModelSpec> inference;  // reference, reward, critic (any number)
  hw::GpuSpec gpu;
  int tp = 1;                    // GPUs of one generation instance
  int64_t inference_seq = 2048;  // tokens of one inference sequence (prompt + output)
  int64_t inference_batch = 8;   // sequences per inference forward pass
};

class ServeRolloutCost final : public RolloutCost {
 public:
  double DecodeSeconds(int64_t batch, int64_t context) const override;
  double PrefillSeconds(int64_t batch, int64_t prompt) const override;
  double InferenceSecondsPerToken() const override { return inference_per_token_; }
  double MigrationSecondsPerToken() const override { return migration_per_token_; }
  // Sequences of `context` tokens whose KV cache fits one instance beside the actor's weights (>= 1).
  int64_t max_batch(int64_t context) const;

 private:
  friend Result<std::unique_ptr<ServeRolloutCost>> MakeServeRolloutCost(const ServeRolloutInputs&,
                                                                        const catalog::Catalogs&);
  std::unique_ptr<serve::IterationCostModel> actor_;
  int layers_ = 0;
  double inference_per_token_ = 0, migration_per_token_ = 0;
  double kv_capacity_bytes_ = 0, kv_bytes_per_token_ = 0;
};

// Errors: a model or GPU the serving cost model rejects; Infeasible when the actor's weights do
// not fit the instance.
Result<std::unique_ptr<ServeRolloutCost>> MakeServeRolloutCost(const ServeRolloutInputs& in,
                                                               const catalog::Catalogs& catalogs);

}  // namespace dlsim::rlhf

#endif  // DLSIM_STUDIES_RLHF_SERVE_ROLLOUT_COST_H_
