#include "dlsim/train/step_model.h"

#include <algorithm>
#include <cmath>

#include "data_parallel_work.h"
#include "dlsim/core/stats.h"
#include "dlsim/core/strings.h"
#include "dlsim/model/dit.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/data_steps.h"

namespace dlsim::train {
namespace {

StepResult Infeasible(std::string reason) {
  StepResult r;
  r.feasible = false;
  r.reason = std::move(reason);
  return r;
}

// Builds the program of one uniform step: the pipeline order, the task costs and p2p time.
Result<StepProgram> PipelineProgram(const TrainOptions& o, const ParallelPlan& plan,
                                    const ChunkCostModel& costs, const PipelineSchedule& schedule) {
  StepProgram prog;
  prog.shape = {plan.pp, plan.chunks, plan.micro_batches};
  DLSIM_ASSIGN_OR_RETURN(PipeOrder order, schedule.Order(prog.shape));
  prog.orders = {std::move(order)};
  prog.task_cost = [&costs](int, int rank, const PipeTask& t) {
    const ChunkCosts& c = costs.Get(rank, t.chunk);
    return t.forward ? c.forward : c.backward;
  };
  prog.p2p = costs.p2p_time();
  prog.p2p_bytes = costs.p2p_bytes();
  prog.overlap_grad_reduce = o.parallel.overlap_grad_reduce;
  prog.zero3_reshard = !KeepsGatheredWeights(o.parallel);
  prog.overlap_contention = o.parallel.overlap_contention;
  prog.p2p_blocking = o.parallel.p2p_blocking;
  return prog;
}

// What the simulated step(s) give the metrics below.
struct SimulatedSteps {
  StepTimeline timeline;           // the step (data-aware: the slowest, at the mean step time)
  std::vector<Bytes> stage_act;    // per virtual stage, data-aware runs (empty otherwise)
  std::vector<Bytes> stage_state;  // resident state per virtual stage, data-aware runs (empty otherwise)
  double real_tokens_per_step = 0;
  // The sequence length of the model-FLOPs convention's attention term (keys per query, no causal halving):
  // seq_len, or with real documents sum(l^2) / sum(l), so that attention counts each document on its own.
  double attention_seq = 0;
  uint64_t events = 0;
  std::optional<DataSummary> data;
  std::optional<RoutingSummary> routing;
};

DataSummary SummarizeDataSteps(const TrainOptions& o, const DataStepsResult& runs) {
  DataSummary ds;
  ds.policy = o.data->policy;
  ds.steps = static_cast<int>(runs.steps.size());
  std::vector<double> times, gaps;
  for (const StepTimeline& s : runs.steps) {
    times.push_back(s.step_time.ToSeconds());
    const auto [lo, hi] = std::minmax_element(s.replica_compute_end.begin(), s.replica_compute_end.end());
    gaps.push_back((*hi - *lo).ToSeconds());
  }
  const Percentiles t = Summarize(times), g = Summarize(gaps);
  ds.mean_s = t.mean;
  ds.p50_s = t.p50;
  ds.p99_s = t.p99;
  ds.max_s = t.max;
  ds.straggler_mean_s = g.mean;
  ds.straggler_max_s = g.max;
  ds.real_tokens_per_step = static_cast<double>(runs.real_tokens) / ds.steps;
  ds.padding_fraction =
      runs.computed_tokens > 0 ? 1.0 - static_cast<double>(runs.real_tokens) / runs.computed_tokens : 0;
  ds.documents_per_step = runs.documents / ds.steps;
  ds.truncated = runs.truncated;
  ds.max_micro_batches = runs.max_micro_batches;
  return ds;
}

// Runs the uniform step, or o.data->steps steps with real micro-batch contents.
Result<SimulatedSteps> RunSteps(const TrainOptions& o, const ParallelPlan& plan, const ChunkCostModel& costs,
                                const PipelineSchedule& schedule, const StepProgram& prog,
                                report::Sink* sink) {
  SimulatedSteps out;
  out.real_tokens_per_step = static_cast<double>(o.training.global_batch) * o.training.seq_len;
  out.attention_seq = o.training.seq_len;
  if (o.routing && o.data)
    return Error::InvalidArgument(
        "routing and data together are not modelled yet: give one of them (data-aware documents with "
        "balanced routing, or data-aware routing with full sequences)");
  if (o.routing) {
    DLSIM_ASSIGN_OR_RETURN(RoutedStep routed, SimulateRoutedStep(o, plan, costs, prog, sink));
    out.timeline = std::move(routed.timeline);
    out.events = out.timeline.events;
    out.routing = std::move(routed.summary);
    return out;
  }
  if (!o.data) {
    out.timeline = SimulateStep(prog, sink);
    out.events = out.timeline.events;
    return out;
  }
  DLSIM_ASSIGN_OR_RETURN(DataStepsResult runs, SimulateDataSteps(o, plan, costs, schedule, prog, sink));
  size_t worst = 0;
  for (size_t i = 0; i < runs.steps.size(); ++i) {
    if (runs.steps[i].step_time > runs.steps[worst].step_time) worst = i;
    out.events += runs.steps[i].events;
  }
  out.data = SummarizeDataSteps(o, runs);
  out.real_tokens_per_step = out.data->real_tokens_per_step;
  if (runs.real_tokens > 0)
    out.attention_seq = runs.sum_sq_doc_tokens / static_cast<double>(runs.real_tokens);
  out.timeline = runs.steps[worst];  // breakdown and memory of the slowest step
  out.timeline.step_time = Seconds(out.data->mean_s);
  out.stage_act = std::move(runs.stage_activations);
  out.stage_state = std::move(runs.stage_state);
  return out;
}

// [rank][chunk]: the activation bytes one micro-batch of each chunk keeps (StepProgram::activation_bytes).
std::vector<std::vector<double>> ActivationBytesByChunk(const ParallelPlan& plan,
                                                        const ChunkCostModel& costs) {
  std::vector<std::vector<double>> bytes(plan.pp, std::vector<double>(plan.chunks));
  for (int rank = 0; rank < plan.pp; ++rank)
    for (int c = 0; c < plan.chunks; ++c) bytes[rank][c] = costs.Get(rank, c).activations.value();
  return bytes;
}

// PyTorch's recipes (bf16, autocast) allocate each gradient during the backward, as the activations it
// consumes are freed, and free the gradients after the step (zero_grad(set_to_none=True), PyTorch's default):
// with one micro-batch per step the peak holds the larger of all activations (the backward's start) and all
// gradients (its end, and the optimizer step), not both. With gradient accumulation the first micro-batch's
// gradients stay through the next ones' forward, so both count. Megatron's mixed recipe keeps its gradient
// buffers allocated.
void KeepLargerOfActivationsAndGradients(const TrainOptions& o, const ParallelPlan& plan, StageMemory& mem) {
  if (o.training.recipe == Recipe::kMixed || plan.micro_batches > 1) return;
  if (mem.activations >= mem.gradients) {
    mem.gradients = Bytes(0);
  } else {
    mem.activations = Bytes(0);
  }
}

// PyTorch DDP (the bf16 and autocast recipes without ZeRO over dp > 1 GPUs) all-reduces through flat bucket
// buffers allocated when the model is wrapped: with gradient_as_bucket_view False (the default) they are a
// second copy of every gradient, for the whole run (PyTorch PR #41954, which added the view: "peak memory
// dropped ~1GB" for a model of ~1 GB of parameters). Megatron's mixed recipe reduces in its gradient buffer
// itself.
Bytes DdpBucketBytes(const TrainOptions& o, int dp, double params, double gradient_bytes) {
  if (o.training.recipe == Recipe::kMixed || o.parallel.zero != 0 || dp <= 1) return Bytes(0);
  return Bytes(params * gradient_bytes);
}

// Memory per pipeline rank, the peak, and feasibility against the GPU's capacity.
void AddMemory(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
               const ChunkCostModel& costs, const SimulatedSteps& run, StepResult& r) {
  const StateBytesPerParam state = StateBytes(o.training);
  const int dp = plan.WeightGroup(), zero = o.parallel.zero;  // ZeRO shards over dp x cp
  for (int rank = 0; rank < plan.pp; ++rank) {
    StageMemory mem;
    const RankTimeline& t = run.timeline.ranks[rank];
    // Each chunk's activations times its micro-batches in flight at the rank's peak; data-aware runs (whose
    // activations differ by micro-batch) keep the mean over chunks times the peak count.
    const bool by_chunk =
        run.stage_act.empty() && t.peak_in_flight_by_chunk.size() == static_cast<size_t>(plan.chunks);
    double params = 0, experts = 0, ends = 0;
    Bytes act_per_mb, held_by_chunk, working, resident;
    for (int c = 0; c < plan.chunks; ++c) {
      const ChunkCosts& cc = costs.Get(rank, c);
      params += cc.params;
      experts += cc.expert_params;
      ends += cc.end_params;
      act_per_mb += run.stage_act.empty() ? cc.activations : run.stage_act[c * plan.pp + rank];
      if (by_chunk) held_by_chunk += cc.activations * static_cast<double>(t.peak_in_flight_by_chunk[c]);
      working = std::max(working, cc.recompute_working_set);
      if (!run.stage_state.empty()) resident += run.stage_state[c * plan.pp + rank];
      mem.layers += plan.LayersOf(rank, c);
    }
    const int in_flight = t.peak_in_flight;  // chunk-micro-batches
    mem.micro_batches_in_flight = in_flight;
    // Routed experts are sharded over their expert-data-parallel group.
    const int edp = plan.edp;
    // ZeRO-3 shards the weights, unless the gathered ones stay until the step's end (reshard_after_forward
    // false: the stage's whole weights resident, FSDP2 under torchtitan's pipeline parallelism).
    const bool sharded = zero >= 3 && !KeepsGatheredWeights(o.parallel);
    mem.weights =
        Bytes((params * state.weights - ends * (state.weights - state.end_weights)) / (sharded ? dp : 1) +
              experts * state.weights / (sharded ? edp : 1));
    const bool grads_sharded = zero >= 2 && !DefersGradReduce(o.parallel);
    mem.gradients = Bytes(params * state.gradients / (grads_sharded ? dp : 1) +
                          experts * state.gradients / (grads_sharded ? edp : 1));
    mem.optimizer = Bytes(params * state.optimizer / (zero >= 1 ? dp : 1) +
                          experts * state.optimizer / (zero >= 1 ? edp : 1));
    const Bytes held = by_chunk ? held_by_chunk : act_per_mb * (static_cast<double>(in_flight) / plan.chunks);
    mem.activations = held + working + resident;
    mem.workspace = ctx.framework_overhead;
    KeepLargerOfActivationsAndGradients(o, plan, mem);
    mem.gradients += DdpBucketBytes(o, dp, params + experts, state.gradients);
    if (mem.Total() > r.peak_memory) {
      r.peak_memory = mem.Total();
      r.peak_rank = rank;
    }
    r.memory.push_back(mem);
  }
  const ReserveRatio reserve = AllocatorReserveRatio(o.parallel.recompute);
  r.peak_reserved = r.peak_memory * reserve.median;
  r.peak_reserved_low = r.peak_memory * reserve.low;
  r.peak_reserved_high = r.peak_memory * reserve.high;
  const Bytes capacity = ctx.gpu->hbm_capacity;
  r.feasible = r.peak_memory <= capacity;
  if (r.feasible) return;
  r.reason = "out of memory: pipeline rank " + std::to_string(r.peak_rank) + " needs " +
             FormatNumber(r.peak_memory.ToGiB(), 4) + " GiB, the " + ctx.gpu->name + " has " +
             FormatNumber(capacity.ToGiB(), 4) + " GiB (short by " +
             FormatNumber((r.peak_memory - capacity).ToGiB(), 4) + " GiB)";
}

// Step time, tokens per second, model and hardware FLOP/s per GPU, MFU.
void AddThroughput(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                   const ChunkCostModel& costs, const SimulatedSteps& run, StepResult& r) {
  r.step_time_s = run.timeline.step_time.ToSeconds();
  const double gpus = o.hardware.gpus;
  const double tokens = run.real_tokens_per_step;
  r.tokens_per_s = tokens / r.step_time_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / gpus;
  const double model_flops = 3.0 * model::ModelForwardFlops(o.model, tokens, run.attention_seq, false);
  double hw_extra = 0;
  for (int rank = 0; rank < plan.pp; ++rank)
    for (int c = 0; c < plan.chunks; ++c) {
      const ChunkCosts& cc = costs.Get(rank, c);
      hw_extra += (cc.hardware_flops - cc.model_flops).value();
    }
  const double recompute_flops_per_gpu = hw_extra * plan.micro_batches / plan.pp;
  r.model_tflops_per_gpu = model_flops / gpus / r.step_time_s * 1e-12;
  r.hardware_tflops_per_gpu = r.model_tflops_per_gpu + recompute_flops_per_gpu / r.step_time_s * 1e-12;
  const double peak = ctx.gpu->Peak(o.training.precision).ToTFLOPS();
  r.mfu = peak > 0 ? r.model_tflops_per_gpu / peak : 0;
}

// The critical rank's breakdown and the largest non-compute share in words.
void AddBreakdown(const StepTimeline& tl, const StepProgram& prog, StepResult& r) {
  r.critical_rank = tl.critical_rank;
  const RankTimeline& c = tl.ranks[tl.critical_rank];
  Breakdown& b = r.breakdown;
  b.compute_s = c.compute.ToSeconds();
  b.recompute_s = c.recompute.ToSeconds();
  b.gemm_s = c.mix.gemm.ToSeconds();
  b.attention_s = c.mix.attention.ToSeconds();
  b.memory_s = c.mix.memory.ToSeconds();
  b.host_wait_s = c.mix.host_wait.ToSeconds();
  b.contention_s = c.contention.ToSeconds();
  b.tp_comm_s = c.tp_comm.ToSeconds();
  b.cp_comm_s = c.cp_comm.ToSeconds();
  b.ep_comm_s = c.ep_comm.ToSeconds();
  b.pp_bubble_s = c.bubble.ToSeconds();
  b.dp_comm_s = c.dp_exposed.ToSeconds();
  b.optimizer_s = c.optimizer.ToSeconds();
  if (static_cast<size_t>(tl.critical_rank) < prog.optimizer_casts.size())
    b.cast_s = std::min(b.optimizer_s, prog.optimizer_casts[tl.critical_rank].ToSeconds());
  b.param_gather_s = (c.param_gather + c.gather_wait).ToSeconds();  // after the step, and ZeRO-3 waits
  const std::pair<double, const char*> shares[] = {
      {b.tp_comm_s, "tensor-parallel communication"},    {b.cp_comm_s, "context-parallel communication"},
      {b.ep_comm_s, "expert-parallel all-to-all"},       {b.pp_bubble_s, "pipeline bubble"},
      {b.dp_comm_s, "data-parallel gradient reduction"}, {b.optimizer_s, "optimizer step"},
      {b.param_gather_s, "parameter all-gather"}};
  const auto* top = &shares[0];
  for (const auto& s : shares)
    if (s.first > top->first) top = &s;
  const auto pct = [&](double x) { return FormatNumber(100 * x / r.step_time_s, 3) + "%"; };
  if (top->first > b.compute_s) {
    r.bottleneck = std::string(top->second) + " (" + pct(top->first) + " of the step)";
  } else {
    r.bottleneck = "compute-bound (" + pct(b.compute_s) + " compute)";
    if (top->first > 0.05 * r.step_time_s)
      r.bottleneck += "; largest other cost: " + std::string(top->second) + " (" + pct(top->first) + ")";
  }
}

// A simulated step is a positive, finite time: a saturated clock means an input far out of range,
// a zero step means nothing was scheduled. Neither may pass as an answer.
Status CheckSane(const SimulatedSteps& run) {
  const Duration t = run.timeline.step_time;
  if (t.IsSaturated())
    return Error::InvalidArgument(
        "the simulated step overflows the clock (longer than 146 years): an input is far out of its "
        "range (a bandwidth or FLOP rate near zero?)");
  if (t <= Duration::Zero())
    return Error::Infeasible("the step does no work: no tokens were scheduled on any replica");
  return Status::Ok();
}

// What a context-parallel layout policy chose and what its attention costs per step.
CpAttentionSummary SummarizeCpAttention(const CpAttentionPlan& a, const ParallelPlan& plan,
                                        Recompute recompute, double step_s) {
  CpAttentionSummary s;
  s.layout = a.layout;
  s.ulysses = a.ulysses;
  s.ring = a.ring;
  s.mean_sparsity = a.mean_sparsity;
  double attention = 0, predictor = 0, comm = 0, kv = 0;
  for (const CpLayerCost& l : a.layers) {
    attention += StepAttentionTime(l, recompute).ToSeconds();
    predictor += l.predictor_fwd.ToSeconds();
    comm += (l.fwd_comm + l.bwd_comm).ToSeconds();
    kv += l.kv_bytes.value();
    s.balance_max = std::max(s.balance_max, l.balance);
    s.balance_mean += l.balance / static_cast<double>(a.layers.size());
  }
  const double per_rank = static_cast<double>(plan.micro_batches) / plan.pp;  // layers spread over pp
  s.attention_s = attention * per_rank;
  s.predictor_s = predictor * per_rank;
  s.exposed_comm_s = comm * per_rank;
  s.kv_bytes_per_layer = a.layers.empty() ? 0 : kv / static_cast<double>(a.layers.size());
  s.attention_share = step_s > 0 ? s.attention_s / step_s : 0;
  return s;
}

// Under attention sparsity a DiT's model FLOPs count the self/joint attention pairs it computes (1 - mean
// sparsity of them), not the dense ones: the useful work, so MFU stays a fraction of the peak.
void CountSparseModelFlops(const TrainOptions& o, const SimulatedSteps& run, double sparsity, StepResult& r) {
  if (!o.sparsity || o.model.arch != model::Arch::kDit || r.step_time_s <= 0) return;
  const double samples = run.real_tokens_per_step / run.attention_seq;
  const double skipped = 3.0 * samples * sparsity *
                         model::DitSelfAttentionFlops(o.model, run.attention_seq, o.model.dit.text_tokens);
  const double per_gpu_s = 1e-12 / o.hardware.gpus / r.step_time_s;
  r.model_tflops_per_gpu -= skipped * per_gpu_s;
  r.hardware_tflops_per_gpu -= skipped * per_gpu_s;
  const double peak = r.mfu > 0 ? (r.model_tflops_per_gpu + skipped * per_gpu_s) / r.mfu : 0;
  r.mfu = peak > 0 ? r.model_tflops_per_gpu / peak : 0;
}

// An infeasible error becomes a result; any other error stays an error.
Result<StepResult> InfeasibleOr(const Error& e) {
  if (e.code == ErrorCode::kInfeasible) return Infeasible(e.message);
  return e;
}

}  // namespace

// Megatron-LM accumulates and reduces fp32 gradients for bf16 (and fp8) training and keeps
// fp16 gradients for fp16 training unless --accumulate-allreduce-grads-in-fp32 is given.
// FP8 training (Transformer Engine) keeps the bf16 weight and an fp8 copy.
ReserveRatio AllocatorReserveRatio(Recompute mode) {
  if (mode == Recompute::kFull) return {.median = 1.2154, .low = 1.1273, .high = 1.2937};
  return {.median = 1.0458, .low = 1.0163, .high = 1.1221};
}

StateBytesPerParam StateBytes(const TrainingOptions& t) {
  StateBytesPerParam b;
  switch (t.recipe) {
    case Recipe::kBf16:  // bf16 weights, gradients, AdamW moments
      b.weights = b.end_weights = 2.0;
      b.gradients = t.grad_dtype ? hw::DTypeBytes(*t.grad_dtype) : 2.0;
      b.optimizer = 4.0;
      return b;
    case Recipe::kAutocast:  // fp32 weights plus autocast's bf16 copies, fp32 gradients and moments
      b.weights = b.end_weights = 6.0;
      b.gradients = t.grad_dtype ? hw::DTypeBytes(*t.grad_dtype) : 4.0;
      b.optimizer = 8.0;
      return b;
    case Recipe::kMixed:
      break;
  }
  b.weights = t.precision == hw::DType::kFp8 ? 3.0 : 2.0;
  b.gradients = t.grad_dtype ? hw::DTypeBytes(*t.grad_dtype) : (t.precision == hw::DType::kFp16 ? 2.0 : 4.0);
  b.optimizer = 12.0;
  return b;
}

Result<StepResult> SimulateTrainingStep(const TrainOptions& o, const StepContext& ctx,
                                        const PipelineScheduleRegistry& schedules, report::Sink* sink) {
  Result<ParallelPlan> plan = MakeParallelPlan(o);
  if (!plan.ok()) return InfeasibleOr(plan.error());
  DLSIM_ASSIGN_OR_RETURN(auto schedule,
                         schedules.Create(std::string(PipelineScheduleName(o.parallel.pipeline_schedule))));
  std::optional<CpAttentionPlan> cp_attention;
  if (UsesCpLayout(o)) {
    Result<CpAttentionPlan> planned = PlanCpAttention(o, *plan, ctx);
    if (!planned.ok()) return InfeasibleOr(planned.error());
    cp_attention = std::move(planned).value();
  }
  ChunkCostModel costs(o, *plan, ctx, cp_attention ? &*cp_attention : nullptr);
  Result<StepProgram> prog = PipelineProgram(o, *plan, costs, *schedule);
  if (!prog.ok()) return InfeasibleOr(prog.error());
  prog->activation_bytes = ActivationBytesByChunk(*plan, costs);
  internal::AddDataParallelWork(o, *plan, ctx, costs, *prog);
  Result<SimulatedSteps> run = RunSteps(o, *plan, costs, *schedule, *prog, sink);
  if (!run.ok()) return InfeasibleOr(run.error());
  if (Status sane = CheckSane(*run); !sane.ok()) return InfeasibleOr(sane.error());
  StepResult r;
  r.plan = *plan;
  r.events = run->events;
  r.data = run->data;
  r.routing = run->routing;
  AddMemory(o, *plan, ctx, costs, *run, r);
  AddThroughput(o, *plan, ctx, costs, *run, r);
  AddBreakdown(run->timeline, *prog, r);
  if (cp_attention) {
    r.cp_attention = SummarizeCpAttention(*cp_attention, *plan, o.parallel.recompute, r.step_time_s);
    CountSparseModelFlops(o, *run, cp_attention->mean_sparsity, r);
  }
  return r;
}

}  // namespace dlsim::train
