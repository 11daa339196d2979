#include "dlsim/train/parallel_plan.h"

#include <numeric>

namespace dlsim::train {
namespace {

std::string S(int v) { return std::to_string(v); }

}  // namespace

std::vector<int> BalancedLayerPlacement(int layers, int stages) {
  std::vector<int> out(stages, (layers + stages - 1) / stages);
  int surplus = out[0] * stages - layers;
  // Take the surplus from the ends first (they carry the embedding and the head), then
  // inwards, alternating front and back.
  int front = 0, back = stages - 1;
  bool take_front = true;
  while (surplus > 0) {
    int& slot = take_front ? out[front++] : out[back--];
    --slot;
    --surplus;
    take_front = !take_front;
    if (front > back) {
      front = 0;
      back = stages - 1;
    }
  }
  return out;
}

Result<ParallelPlan> MakeParallelPlan(const TrainOptions& o) {
  const auto& par = o.parallel;
  const auto& m = o.model;
  ParallelPlan plan;
  plan.tp = par.tp;
  plan.pp = par.pp;
  plan.cp = par.cp;
  plan.chunks = par.pipeline_schedule == PipelineScheduleKind::kInterleaved ? par.virtual_stages : 1;
  if (plan.chunks > 1 && par.pp < 2)
    return Error::InvalidArgument("the interleaved schedule with virtual_stages " + S(plan.chunks) +
                                  " needs pipeline parallelism (pp >= 2)");
  plan.micro_batch = o.training.micro_batch;
  plan.seq_len = o.training.seq_len;
  plan.sequence_parallel = par.sequence_parallel && par.tp > 1;
  const int mp = par.tp * par.pp * par.cp;
  if (mp <= 0 || o.hardware.gpus % mp != 0)
    return Error::InvalidArgument("tp*pp*cp = " + S(mp) + " does not divide the GPU count " +
                                  S(o.hardware.gpus));
  plan.dp = par.dp > 0 ? par.dp : o.hardware.gpus / mp;
  if (plan.dp * mp != o.hardware.gpus)
    return Error::InvalidArgument("tp*pp*cp*dp = " + S(plan.dp * mp) + " differs from the GPU count " +
                                  S(o.hardware.gpus));
  if (m.heads % par.tp != 0)
    return Error::InvalidArgument("tp " + S(par.tp) + " does not divide the " + S(m.heads) +
                                  " attention heads");
  if (m.kv_heads % par.tp != 0 && par.tp % m.kv_heads != 0)
    return Error::InvalidArgument("tp " + S(par.tp) + " and the " + S(m.kv_heads) +
                                  " KV heads do not divide");
  const int per_step = plan.micro_batch * plan.dp;
  if (o.training.global_batch % per_step != 0)
    return Error::InvalidArgument("global batch " + S(o.training.global_batch) +
                                  " is not divisible by micro_batch * dp = " + S(per_step));
  plan.micro_batches = o.training.global_batch / per_step;
  if (o.training.seq_len % (2 * par.cp) != 0 && par.cp > 1)
    return Error::InvalidArgument("seq_len " + S(o.training.seq_len) +
                                  " is not divisible by 2*cp = " + S(2 * par.cp));
  const int stages = plan.VirtualStages();
  if (!par.layers_per_stage.empty()) {
    if (static_cast<int>(par.layers_per_stage.size()) != stages)
      return Error::InvalidArgument("layers_per_stage has " + S(par.layers_per_stage.size()) +
                                    " entries, expected pp*virtual_stages = " + S(stages));
    const int sum = std::accumulate(par.layers_per_stage.begin(), par.layers_per_stage.end(), 0);
    if (sum != m.layers)
      return Error::InvalidArgument("layers_per_stage sums to " + S(sum) + ", the model has " + S(m.layers) +
                                    " layers");
    plan.layers = par.layers_per_stage;
  } else {
    if (m.layers < stages)
      return Error::InvalidArgument("the model's " + S(m.layers) + " layers cannot fill " + S(stages) +
                                    " pipeline stages (pp * virtual_stages)");
    plan.layers = BalancedLayerPlacement(m.layers, stages);
  }
  return plan;
}

}  // namespace dlsim::train
