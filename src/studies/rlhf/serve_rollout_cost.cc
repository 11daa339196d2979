#include "dlsim/studies/rlhf/serve_rollout_cost.h"

#include <fmt/format.h>

#include <algorithm>

#include "dlsim/serve/setup.h"

namespace dlsim::rlhf {
namespace {

serve::ServeOptions InstanceOptions(const model::ModelSpec& m, const hw::GpuSpec& gpu, int tp) {
  serve::ServeOptions o;
  o.name = "rlhf-rollout";
  o.model = m;
  o.gpu = gpu;
  o.hardware.tp = tp;
  return o;
}

// Seconds per token of a prefill pass over `batch` sequences of `seq` tokens.
double PrefillPerToken(const serve::IterationCostModel& cost, int layers, int64_t batch, int64_t seq) {
  serve::BatchShape b;
  b.prefill_tokens = batch * seq;
  b.prefill_pairs = static_cast<double>(batch) * static_cast<double>(seq) * static_cast<double>(seq + 1) / 2;
  b.prefill_requests = batch;
  b.logits = batch * seq;  // reward/critic heads and reference log-probs score every token
  return cost.Time(b).Total(layers).ToSeconds() / static_cast<double>(b.prefill_tokens);
}

}  // namespace

double ServeRolloutCost::DecodeSeconds(int64_t batch, int64_t context) const {
  serve::BatchShape b;
  b.decode_requests = batch;
  b.decode_context = context;
  b.logits = batch;
  return actor_->Time(b).Total(layers_).ToSeconds();
}

double ServeRolloutCost::PrefillSeconds(int64_t batch, int64_t prompt) const {
  serve::BatchShape b;
  b.prefill_tokens = batch * prompt;
  b.prefill_pairs =
      static_cast<double>(batch) * static_cast<double>(prompt) * static_cast<double>(prompt + 1) / 2;
  b.prefill_requests = batch;
  b.logits = batch;
  return actor_->Time(b).Total(layers_).ToSeconds();
}

int64_t ServeRolloutCost::max_batch(int64_t context) const {
  const double fit =
      kv_capacity_bytes_ / (kv_bytes_per_token_ * static_cast<double>(std::max<int64_t>(1, context)));
  return std::max<int64_t>(1, static_cast<int64_t>(fit));
}

Result<std::unique_ptr<ServeRolloutCost>> MakeServeRolloutCost(const ServeRolloutInputs& in,
                                                               const catalog::Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<serve::ServeEnvironment> env,
                         serve::MakeServeEnvironment(catalogs.compute, catalogs.network));
  auto out = std::unique_ptr<ServeRolloutCost>(new ServeRolloutCost());
  const serve::ServeOptions actor = InstanceOptions(in.actor, in.gpu, in.tp);
  DLSIM_ASSIGN_OR_RETURN(out->actor_, serve::MakeCostModel(actor, *env));
  out->layers_ = in.actor.layers;
  DLSIM_ASSIGN_OR_RETURN(serve::MemoryPlan plan, serve::PlanMemory(actor, *out->actor_));
  if (plan.kv_capacity.value() <= 0) {
    return Error::Infeasible(fmt::format("rlhf: {} does not fit {} x {}", in.actor.name, in.tp, in.gpu.name));
  }
  out->kv_capacity_bytes_ = plan.kv_capacity.value() * in.tp;  // every GPU of the instance
  out->kv_bytes_per_token_ = serve::KvBytesPerToken(actor).value() * in.tp;
  for (const model::ModelSpec& m : in.inference) {
    DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<serve::IterationCostModel> c,
                           serve::MakeCostModel(InstanceOptions(m, in.gpu, in.tp), *env));
    out->inference_per_token_ += PrefillPerToken(*c, m.layers, in.inference_batch, in.inference_seq);
  }
  const double link =
      in.gpu.nvlink_bandwidth.value() > 0 ? in.gpu.nvlink_bandwidth.value() : in.gpu.PcieBandwidth().value();
  if (!(link > 0))
    return Error::InvalidArgument(fmt::format("rlhf: GPU {} has no NVLink or PCIe bandwidth", in.gpu.name));
  out->migration_per_token_ = out->kv_bytes_per_token_ / (link * in.tp);  // every GPU sends its share
  return out;
}

}  // namespace dlsim::rlhf
