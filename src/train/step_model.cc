#include "dlsim/train/step_model.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/strings.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/data_steps.h"

namespace dlsim::train {
namespace {

constexpr double kMaxBucketParams = 40e6;  // Megatron-LM DDP default bucket (elements)
// Adam step per parameter: read+write master, m, v (24 B), read the fp32 gradient (4 B),
// write the bf16 weight (2 B); gradient-norm clipping reads the gradient once more (4 B).
constexpr double kAdamBytesPerParam = 34.0;

StepResult Infeasible(std::string reason) {
  StepResult r;
  r.feasible = false;
  r.reason = std::move(reason);
  return r;
}

}  // namespace

// Megatron-LM accumulates and reduces fp32 gradients for bf16 (and fp8) training and keeps
// fp16 gradients for fp16 training unless --accumulate-allreduce-grads-in-fp32 is given.
// FP8 training (Transformer Engine) keeps the bf16 weight and an fp8 copy.
StateBytesPerParam StateBytes(const TrainingOptions& t) {
  StateBytesPerParam b;
  b.weights = t.precision == hw::DType::kFp8 ? 3.0 : 2.0;
  b.gradients = t.grad_dtype ? hw::DTypeBytes(*t.grad_dtype) : (t.precision == hw::DType::kFp16 ? 2.0 : 4.0);
  b.optimizer = 12.0;
  return b;
}

StepResult SimulateTrainingStep(const TrainOptions& o, const StepContext& ctx,
                                const PipelineScheduleRegistry& schedules, report::Sink* sink) {
  auto plan_or = MakeParallelPlan(o);
  if (!plan_or.ok()) return Infeasible(plan_or.error().message);
  const ParallelPlan& plan = *plan_or;
  auto sched = schedules.Create(std::string(PipelineScheduleName(o.parallel.pipeline_schedule)));
  if (!sched.ok()) return Infeasible(sched.error().message);
  StepProgram prog;
  prog.shape = {plan.pp, plan.chunks, plan.micro_batches};
  auto order = (*sched)->Order(prog.shape);
  if (!order.ok()) return Infeasible(order.error().message);
  prog.orders = {std::move(order).value()};

  ChunkCostModel costs(o, plan, ctx);
  prog.task_cost = [&costs](int, int rank, const PipeTask& t) {
    const ChunkCosts& c = costs.Get(rank, t.chunk);
    return t.forward ? c.forward : c.backward;
  };
  prog.p2p = costs.p2p_time();
  prog.overlap_grad_reduce = o.parallel.overlap_grad_reduce;

  // Data-parallel gradient reduction, optimizer and parameter gathering per pipeline rank.
  const int dp = plan.dp, zero = o.parallel.zero;
  const int dp_per_node = std::clamp(ctx.gpus_per_node / (plan.tp * plan.cp), 1, dp);
  const net::GroupLayout dpg{dp, dp_per_node};
  const net::Collective reduce = zero >= 1 ? net::Collective::kReduceScatter : net::Collective::kAllReduce;
  const StateBytesPerParam state = StateBytes(o.training);
  const double wbytes = state.weights, gbytes = state.gradients;
  prog.buckets.resize(plan.pp);
  for (int r = 0; r < plan.pp; ++r) {
    double rank_params = 0;
    for (int c = 0; c < plan.chunks; ++c) {
      const double params = costs.Get(r, c).params;
      rank_params += params;
      if (dp <= 1) continue;
      const double bucket = std::max(kMaxBucketParams, 1e6 * dp);
      const int n = std::max(1, static_cast<int>(std::ceil(params / bucket)));
      const Duration t = ctx.comm->Time(reduce, Bytes(params / n * gbytes), dpg, ctx.fabric);
      for (int i = 0; i < n; ++i) prog.buckets[r].push_back({c, double(i + 1) / n, t});
    }
    const double shard = zero >= 1 ? rank_params / dp : rank_params;
    prog.optimizer.push_back(ctx.compute->MemoryBound(Bytes(shard * kAdamBytesPerParam), Flops(shard * 12)));
    Duration gather;
    if (zero >= 1 && dp > 1) {
      gather = ctx.comm->Time(net::Collective::kAllGather, Bytes(rank_params * 2.0), dpg, ctx.fabric);
      // Overlapped with the next step's first forward pass, layer by layer.
      if (o.parallel.overlap_param_gather)
        gather = std::max(Duration::Zero(), gather - costs.Get(r, 0).forward.Total());
    }
    prog.param_gather.push_back(gather);
    if (zero >= 3 && dp > 1) {
      const double chunk_params = rank_params / plan.chunks;
      prog.zero3_gather.push_back(
          ctx.comm->Time(net::Collective::kAllGather, Bytes(chunk_params * 2.0), dpg, ctx.fabric));
    }
  }

  StepResult r;
  r.plan = plan;
  StepTimeline tl;
  std::vector<Bytes> stage_act;  // per virtual stage, data-aware runs
  double real_tokens_per_step = static_cast<double>(o.training.global_batch) * o.training.seq_len;
  if (o.data) {
    auto runs = SimulateDataSteps(o, plan, costs, **sched, prog, sink);
    if (!runs.ok()) return Infeasible(runs.error().message);
    DataSummary ds;
    ds.policy = o.data->policy;
    ds.steps = static_cast<int>(runs->steps.size());
    std::vector<double> times, gaps;
    size_t worst = 0;
    for (size_t i = 0; i < runs->steps.size(); ++i) {
      const StepTimeline& s = runs->steps[i];
      times.push_back(s.step_time.ToSeconds());
      const auto [lo, hi] = std::minmax_element(s.replica_compute_end.begin(), s.replica_compute_end.end());
      gaps.push_back((*hi - *lo).ToSeconds());
      if (s.step_time > runs->steps[worst].step_time) worst = i;
      r.events += s.events;
    }
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    auto pct = [&](double q) {
      return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * (sorted.size() - 1) + 0.5))];
    };
    for (double t : times) ds.mean_s += t / times.size();
    ds.p50_s = pct(0.5);
    ds.p99_s = pct(0.99);
    ds.max_s = sorted.back();
    for (double g : gaps) {
      ds.straggler_mean_s += g / gaps.size();
      ds.straggler_max_s = std::max(ds.straggler_max_s, g);
    }
    ds.real_tokens_per_step = static_cast<double>(runs->real_tokens) / ds.steps;
    ds.padding_fraction =
        runs->computed_tokens > 0 ? 1.0 - static_cast<double>(runs->real_tokens) / runs->computed_tokens : 0;
    ds.documents_per_step = runs->documents / ds.steps;
    ds.truncated = runs->truncated;
    ds.max_micro_batches = runs->max_micro_batches;
    real_tokens_per_step = ds.real_tokens_per_step;
    tl = runs->steps[worst];  // breakdown and memory of the slowest step
    tl.step_time = Seconds(ds.mean_s);
    stage_act = runs->stage_activations;
    r.data = ds;
  } else {
    tl = SimulateStep(prog, sink);
    r.events = tl.events;
  }
  // Memory per pipeline rank.
  for (int rank = 0; rank < plan.pp; ++rank) {
    StageMemory mem;
    double params = 0;
    Bytes act_per_mb, working;
    for (int c = 0; c < plan.chunks; ++c) {
      const ChunkCosts& cc = costs.Get(rank, c);
      params += cc.params;
      act_per_mb += stage_act.empty() ? cc.activations : stage_act[c * plan.pp + rank];
      working = std::max(working, cc.recompute_working_set);
      mem.layers += plan.LayersOf(rank, c);
    }
    const int in_flight = tl.ranks[rank].peak_in_flight;  // chunk-micro-batches
    mem.micro_batches_in_flight = in_flight;
    mem.weights = Bytes(params * wbytes / (zero >= 3 ? dp : 1));
    mem.gradients = Bytes(params * gbytes / (zero >= 2 ? dp : 1));
    mem.optimizer = Bytes(params * state.optimizer / (zero >= 1 ? dp : 1));
    mem.activations = act_per_mb * (static_cast<double>(in_flight) / plan.chunks) + working;
    mem.workspace = ctx.framework_overhead;
    if (mem.Total() > r.peak_memory) {
      r.peak_memory = mem.Total();
      r.peak_rank = rank;
    }
    r.memory.push_back(mem);
  }
  const Bytes capacity = ctx.gpu->hbm_capacity;
  if (r.peak_memory > capacity) {
    r.feasible = false;
    r.reason = "out of memory: pipeline rank " + std::to_string(r.peak_rank) + " needs " +
               FormatNumber(r.peak_memory.ToGiB(), 4) + " GiB, the " + ctx.gpu->name + " has " +
               FormatNumber(capacity.ToGiB(), 4) + " GiB (short by " +
               FormatNumber((r.peak_memory - capacity).ToGiB(), 4) + " GiB)";
  } else {
    r.feasible = true;
  }

  // Throughput and FLOPs.
  r.step_time_s = tl.step_time.ToSeconds();
  const double gpus = o.hardware.gpus;
  const double tokens = real_tokens_per_step;
  r.tokens_per_s = tokens / r.step_time_s;
  r.tokens_per_s_per_gpu = r.tokens_per_s / gpus;
  const double model_flops = 3.0 * model::ModelForwardFlops(o.model, tokens, o.training.seq_len, false);
  double hw_extra = 0;
  for (int rank = 0; rank < plan.pp; ++rank)
    for (int c = 0; c < plan.chunks; ++c) {
      const ChunkCosts& cc = costs.Get(rank, c);
      hw_extra += (cc.hardware_flops - cc.model_flops).value();
    }
  const double recompute_flops_per_gpu = hw_extra * plan.micro_batches / plan.pp;
  r.model_tflops_per_gpu = model_flops / gpus / r.step_time_s * 1e-12;
  r.hardware_tflops_per_gpu = r.model_tflops_per_gpu + recompute_flops_per_gpu / r.step_time_s * 1e-12;
  const hw::DType peak_dt = o.training.precision;
  const double peak = ctx.gpu->Peak(peak_dt).ToTFLOPS();
  r.mfu = peak > 0 ? r.model_tflops_per_gpu / peak : 0;

  // Breakdown on the critical rank.
  r.critical_rank = tl.critical_rank;
  const RankTimeline& c = tl.ranks[tl.critical_rank];
  r.breakdown.compute_s = c.compute.ToSeconds();
  r.breakdown.recompute_s = c.recompute.ToSeconds();
  r.breakdown.tp_comm_s = c.tp_comm.ToSeconds();
  r.breakdown.cp_comm_s = c.cp_comm.ToSeconds();
  r.breakdown.pp_bubble_s = c.bubble.ToSeconds();
  r.breakdown.dp_comm_s = c.dp_exposed.ToSeconds();
  r.breakdown.optimizer_s = c.optimizer.ToSeconds();
  r.breakdown.param_gather_s = c.param_gather.ToSeconds();
  const std::pair<double, const char*> shares[] = {
      {r.breakdown.tp_comm_s, "tensor-parallel communication"},
      {r.breakdown.cp_comm_s, "context-parallel communication"},
      {r.breakdown.pp_bubble_s, "pipeline bubble"},
      {r.breakdown.dp_comm_s, "data-parallel gradient reduction"},
      {r.breakdown.optimizer_s, "optimizer step"},
      {r.breakdown.param_gather_s, "parameter all-gather"}};
  const auto* top = &shares[0];
  for (const auto& s : shares)
    if (s.first > top->first) top = &s;
  r.bottleneck = top->first > 0.05 * r.step_time_s
                     ? std::string(top->second) + " (" + FormatNumber(100 * top->first / r.step_time_s, 3) +
                           "% of the step)"
                     : "compute-bound";
  return r;
}

}  // namespace dlsim::train
