// One training step, end to end: plan -> chunk costs -> schedule -> event simulation ->
// memory -> metrics. This is the function the CLI, the validation sets and the planner call.
//
//   Result<StepResult> r = SimulateTrainingStep(options, ctx, schedules, /*sink=*/nullptr);
//   if (r.ok() && !r->feasible) std::cout << r->reason;
//
// Thread-safe for distinct arguments (no global state).
#ifndef DLSIM_TRAIN_STEP_MODEL_H_
#define DLSIM_TRAIN_STEP_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/report/sink.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/pipeline_schedule.h"
#include "dlsim/train/prediction_interval.h"
#include "dlsim/train/routed_steps.h"
#include "dlsim/train/step_context.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

struct StageMemory {
  // At the rank's peak. activations: per micro-batch in flight x in flight, plus the recompute working set,
  // plus state a data policy keeps resident across micro-batches (chunkflow's prefix K/V and its gradients).
  // Under PyTorch's recipes (bf16, autocast) with one micro-batch per step, gradients are allocated as
  // activations are freed: the smaller of the two is 0 here (step_model.cc,
  // KeepLargerOfActivationsAndGradients).
  Bytes weights, gradients, optimizer, activations, workspace;
  Bytes Total() const { return weights + gradients + optimizer + activations + workspace; }
  int micro_batches_in_flight = 0;
  int layers = 0;
};

struct Breakdown {         // seconds on the critical pipeline rank; they add up to the step
  double compute_s = 0;    // kernels (recomputation included)
  double recompute_s = 0;  // of which recomputation
  // Of compute_s, by operator kind (KernelMix): GEMMs, core attention, memory-bound kernels (norms,
  // activations, residual adds, rotary, the loss), and waiting for the host to issue a layer's kernels.
  // They add up to compute_s except for kernels priced outside the operator graph (multimodal encoders).
  double gemm_s = 0, attention_s = 0, memory_s = 0, host_wait_s = 0;
  // Of the step, compute's extra time for running beside data-parallel collectives
  // (parallel.overlap_contention).
  double contention_s = 0;
  double tp_comm_s = 0;    // exposed tensor-parallel communication
  double cp_comm_s = 0;    // exposed context-parallel communication
  double ep_comm_s = 0;    // exposed expert-parallel token all-to-all (MoE)
  double pp_bubble_s = 0;  // pipeline bubble and p2p waits
  double dp_comm_s = 0;    // exposed gradient reduction (after the last backward)
  double optimizer_s = 0;
  double cast_s =
      0;  // of optimizer_s: autocast's weight and gradient casts (kernels of the passes, priced here)
  double param_gather_s =
      0;  // exposed parameter all-gather: after the step (distributed optimizer) and, ZeRO-3, before tasks
};

// Statistics of a data-aware run (several steps with real micro-batch contents).
struct DataSummary {
  std::string policy;
  int steps = 0;
  double mean_s = 0, p50_s = 0, p99_s = 0, max_s = 0;  // step time over the steps
  // Data-parallel straggler gap per step: the latest minus the earliest replica to finish
  // its last backward (the time fast replicas wait at the gradient reduction).
  double straggler_mean_s = 0, straggler_max_s = 0;
  double real_tokens_per_step = 0;
  double padding_fraction = 0;  // computed tokens that are padding
  int documents_per_step = 0;
  int truncated = 0;
  int max_micro_batches = 0;
};

// The core attention of a step whose context-parallel layout policy priced it (context_parallel.h): the
// layout it chose, the work balance over the cp ranks (largest / mean rank, per layer), the K/V bytes the
// slowest rank receives per layer, and seconds per step on one pipeline rank: the attention (kernels,
// DSV's predictor and the exposed CP communication, with the recomputed forward), of which the predictor and
// the communication (once per pass); attention_share = attention_s / the step.
struct CpAttentionSummary {
  std::string layout;
  int ulysses = 1, ring = 1;
  double mean_sparsity = 0;
  double balance_mean = 0, balance_max = 0;
  double kv_bytes_per_layer = 0;
  double attention_s = 0, predictor_s = 0, exposed_comm_s = 0;
  double attention_share = 0;
};

struct StepResult {
  bool feasible = false;
  std::string reason;  // why not, when infeasible
  ParallelPlan plan;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double tokens_per_s_per_gpu = 0;
  double model_tflops_per_gpu = 0;     // no recomputation counted
  double hardware_tflops_per_gpu = 0;  // recomputation counted
  double mfu = 0;                      // model FLOP/s over the GPU's dense peak
  std::vector<StageMemory> memory;     // per pipeline rank
  Bytes peak_memory;                   // largest rank
  int peak_rank = 0;
  // What PyTorch's caching allocator reserves at that peak: peak_memory times the reserved / allocated ratio
  // measured on plain-PyTorch runs for the recomputation mode (AllocatorReserveRatio), with the measured
  // range. Feasibility stays peak_memory <= capacity (the allocator frees its cache before it fails an
  // allocation).
  Bytes peak_reserved, peak_reserved_low, peak_reserved_high;
  Breakdown breakdown;
  int critical_rank = 0;
  std::string bottleneck;  // the largest non-compute share, in words
  uint64_t events = 0;
  std::optional<DataSummary> data;                 // set for data-aware runs; step_time_s is then the mean
  std::optional<RoutingSummary> routing;           // set for data-aware MoE routing runs
  std::optional<CpAttentionSummary> cp_attention;  // set when a context-parallel layout priced attention
  // How sure step_time_s is (train/prediction_interval.h); set by train::Simulate.
  std::optional<StepInterval> interval;
  // How sure peak_memory is (train/prediction_interval.h); set by train::Simulate.
  std::optional<MemoryInterval> memory_interval;
};

// Bytes per parameter of the model state on one GPU before ZeRO sharding: weights (bf16; plus
// an fp8 copy under FP8), gradients (grad_dtype: fp32, or fp16 for fp16 training as in
// Megatron-LM) and optimizer (fp32 master weights and Adam moments). end_weights: the weights of the
// embedding and output head, which are not FP8 GEMMs (no fp8 copy).
struct StateBytesPerParam {
  double weights = 2, end_weights = 2, gradients = 4, optimizer = 12;
};
StateBytesPerParam StateBytes(const TrainingOptions& t);

// Peak memory PyTorch's caching allocator reserves over the peak it allocates, by recomputation (selective
// as none, unmeasured): the median and range of the project's measured H200 steps
// (data/calibration/allocator_reserved.csv, scripts/allocator-ratios.py).
struct ReserveRatio {
  double median = 1, low = 1, high = 1;
};
ReserveRatio AllocatorReserveRatio(Recompute mode);

// Simulates one step (o.data: o.data->steps steps with real contents). Infeasible
// configurations (layout does not divide, out of memory, unsupported schedule shape, a document
// a data policy cannot place) give feasible = false with a reason. Errors: anything else
// (unknown pipeline schedule, data policy or length distribution; an unreadable length file).
Result<StepResult> SimulateTrainingStep(const TrainOptions& options, const StepContext& ctx,
                                        const PipelineScheduleRegistry& schedules, report::Sink* sink);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_STEP_MODEL_H_
