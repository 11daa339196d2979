// Shared pieces of the validation sets (set_scenarios.h).
#include "set_scenarios.h"

#include <cmath>

#include "dlsim/train/simulate.h"

namespace dlsim::validate::internal {

using train::PipelineScheduleKind;
using train::Recompute;
using train::TrainOptions;

Result<train::StepResult> Runner::Run(const TrainOptions& o) const {
  return train::Simulate(o, catalogs, nullptr);
}

ValidationRow Row(std::string label, double measured, const Result<train::StepResult>& r) {
  ValidationRow row;
  row.label = std::move(label);
  row.measured = measured;
  if (!r.ok()) {
    row.feasible = false;
    row.note = r.error().message;
    return row;
  }
  row.predicted = r->step_time_s;
  row.feasible = r->feasible;
  if (!r->feasible) row.note = r->reason;
  return row;
}

ValidationRow Row(std::string label, double measured, const TrainOptions& o, const Runner& run) {
  ValidationRow row = Row(std::move(label), measured, run.Run(o));
  row.options = std::make_shared<const TrainOptions>(o);
  return row;
}

std::string Source(const CsvTable& t) { return t.comments.empty() ? t.file_name : t.comments[0]; }

// A DGX A100 (Selene, vTrain's node): 8 x A100 80GB, NVSwitch, 8 x HDR 200 Gb/s.
void DgxA100(TrainOptions& o, int gpus) {
  o.hardware.gpu = "a100-sxm4-80gb";
  o.hardware.node = "dgx-a100";
  o.hardware.gpus = gpus;
  o.hardware.gpus_per_node = 8;
  o.hardware.nics_per_node = 8;
  o.hardware.nic_gbps = 200;
  o.hardware.network = "ib-hdr";
}

// DGX H100 nodes: 8 x H100 SXM5 80GB, NVSwitch, 8 x NDR 400 Gb/s (the GPU count is left as it is).
void DgxH100(TrainOptions& o) {
  o.hardware.gpu = "h100-sxm5-80gb";
  o.hardware.node = "dgx-h100";
  o.hardware.gpus_per_node = 8;
  o.hardware.nics_per_node = 8;
  o.hardware.nic_gbps = 400;
  o.hardware.network = "ib-ndr";
}

// Sets the DGX H100 nodes and NeMo's FP8 recipe: flash attention, distributed optimizer, no recomputation,
// bf16 gradient reduction.
void NemoH100Recipe(TrainOptions& o) {
  DgxH100(o);
  o.training.precision = hw::DType::kFp8;
  o.training.attention = model::AttentionImpl::kFlash;
  o.parallel.zero = 1;
  o.parallel.recompute = Recompute::kNone;
  // Megatron-core's distributed optimizer reduces gradients in bf16 unless
  // grad_reduce_in_fp32 is set (NeMo's default is unset).
  o.training.grad_dtype = hw::DType::kBf16;
}

// Moves a NeMo H100 scenario to DGX B200 nodes (8 GPUs and 8 x 400 Gb/s NICs, as DGX H100).
void DgxB200(TrainOptions& o) {
  o.hardware.gpu = "b200-sxm-180gb";
  o.hardware.node = "dgx-b200";
}

// The scenario of row `i` of a NeMo table for model `m` with the given micro-batch and virtual pipeline
// stages: its GPUs, batch and layout, with sequence parallelism and TP communication overlap whenever tp > 1.
TrainOptions NemoRowWith(const CsvTable& t, size_t i, const model::ModelSpec& m, int micro_batch, int vp) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  TrainOptions o;
  o.model = m;
  NemoH100Recipe(o);
  o.hardware.gpus = num("gpus");
  o.training.seq_len = num("seq_len");
  o.training.global_batch = num("global_batch");
  o.training.micro_batch = micro_batch;
  o.parallel.tp = num("tp");
  o.parallel.pp = num("pp");
  o.parallel.cp = num("cp");
  o.parallel.virtual_stages = vp;
  o.parallel.pipeline_schedule =
      vp > 1 ? PipelineScheduleKind::kInterleaved : PipelineScheduleKind::kOneFOneB;
  o.parallel.sequence_parallel = o.parallel.tp > 1;
  o.parallel.tp_comm_overlap = o.parallel.tp > 1 ? train::TpOverlap::kUserbuffers : train::TpOverlap::kNone;
  return o;
}

// The scenario of row `i` of the NeMo table for model `m`, with the table's micro-batch and vp.
TrainOptions NemoRow(const CsvTable& t, size_t i, const model::ModelSpec& m) {
  auto num = [&](const char* c) { return static_cast<int>(std::lround(*t.Number(i, c))); };
  return NemoRowWith(t, i, m, num("micro_batch"), num("vp"));
}

// The measured step time of a row that publishes tokens/s per GPU: global batch x seq / (tokens/s/GPU x
// GPUs).
double StepFromTokensPerGpu(const CsvTable& t, size_t i, const TrainOptions& o) {
  const double tokens = static_cast<double>(o.training.global_batch) * o.training.seq_len;
  return tokens / (*t.Number(i, "tokens_per_s_per_gpu") * o.hardware.gpus);
}

}  // namespace dlsim::validate::internal
