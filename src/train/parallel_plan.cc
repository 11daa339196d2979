#include "dlsim/train/parallel_plan.h"

#include "dlsim/train/layout_check.h"

namespace dlsim::train {

int ParallelPlan::FirstLayerOf(int rank, int chunk) const {
  int first = 0;
  for (int j = 0; j < chunk * pp + rank; ++j) first += layers[j];
  return first;
}

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
  plan.micro_batch = o.training.micro_batch;
  plan.seq_len = o.training.seq_len;
  plan.sequence_parallel = par.sequence_parallel && par.tp > 1;
  DLSIM_RETURN_IF_ERROR(LayoutStatus(CheckLayout(o)));
  plan.dp = DataParallelSize(o);
  plan.micro_batches = o.training.global_batch / (plan.micro_batch * plan.dp);
  if (m.moe.enabled()) {
    plan.ep = par.ep;
    plan.etp = ExpertTensorParallelSize(o);
    plan.edp = plan.tp * plan.cp * plan.dp / (plan.ep * plan.etp);
  } else {
    plan.edp = plan.dp;
  }
  plan.layers = par.layers_per_stage.empty() ? BalancedLayerPlacement(m.layers, plan.VirtualStages())
                                             : par.layers_per_stage;
  return plan;
}

}  // namespace dlsim::train
