// The data-parallel side of a training step's program (data_parallel_work.h).
#include "data_parallel_work.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "dlsim/train/step_model.h"

namespace dlsim::train::internal {
namespace {

constexpr double kMaxBucketParams = 40e6;  // Megatron-LM DDP default bucket (elements)
// Past this many buckets of one group per chunk they grow instead: the overlap is already as fine as it gets,
// and a model of 10^13 expert parameters would otherwise reduce millions of buckets.
constexpr int kMaxBucketsPerGroup = 4096;
// Adam step per parameter: read+write master, m, v (24 B), read the fp32 gradient (4 B),
// write the bf16 weight (2 B); gradient-norm clipping reads the gradient once more (4 B).
constexpr double kAdamBytesPerParam = 34.0;
// Pure bf16 (torch.optim.AdamW, foreach): read+write weight, m, v in bf16 (12 B), read the gradient (2 B),
// clipping reads it once more (2 B).
constexpr double kAdamBytesPerParamBf16 = 16.0;
// Autocast: the same in fp32 (24 + 4 + 4 B); every forward also casts each linear's weight to bf16 (read 4 B,
// write 2 B per micro-batch) and every backward casts each weight's bf16 gradient into its fp32 .grad (read 2
// B, write 4 B): 12 B per cast parameter per micro-batch (every parameter but an input embedding table that
// is only looked up, ChunkCosts::lookup_params), priced with the optimizer step. The shared H200 traces show
// both (llama-3.2-1b_amp: aten::copy_ of every weight, 89 KB per token each way;
// scripts/trace-layer-bytes.py).
constexpr double kAdamBytesPerParamAutocast = 32.0;
constexpr double kAutocastCastBytesPerParam = 12.0;
// Autograd's own accumulation over a step's micro-batches (recipes bf16 and autocast, whose gradients live in
// each parameter's .grad): the first micro-batch's gradient becomes .grad, every later one is added into it
// in place (torch/csrc/autograd/functions/accumulate_grad.h, accumulateGrad: `variable_grad += new_grad` when
// grad mode is off): read .grad and the new gradient, write .grad, in the parameter's dtype (fp32 under
// autocast: 12 B; bf16: 6 B). Megatron's fused accumulation and DeepSpeed's cast-add have their own pricing.
constexpr double kAutogradAccumulateBytesPerFp32Param = 12.0;
constexpr double kAutogradAccumulateBytesPerBf16Param = 6.0;
// FSDP2's copies (ParallelOptions::sharding, options.h): before an all-gather, each shard parameter is cast
// from its fp32 master to bf16 (read 4 B, write 2 B) and copied into the all-gather input (2 + 2 B); after
// it, each gathered bf16 weight is copied out (read 2 B, write 2 B); before a reduce-scatter, each unsharded
// gradient (bf16 from autograd, or the reduce dtype when accumulated unsharded) is copied into the reduce
// dtype's buffer.
constexpr double kFsdp2GatherCopyInBytesPerShardParam = 10.0;
constexpr double kFsdp2CopyOutBytesPerParam = 4.0;

double AdamBytesPerParam(Recipe r) {
  switch (r) {
    case Recipe::kBf16:
      return kAdamBytesPerParamBf16;
    case Recipe::kAutocast:
      return kAdamBytesPerParamAutocast;
    case Recipe::kMixed:
      break;
  }
  return kAdamBytesPerParam;
}

// How a gradient is reduced: the collective, bytes per gradient on the wire, and bytes per gradient its input
// copy moves on the reduction's stream first (FSDP2's copy-in; 0: none).
struct Reduction {
  net::Collective collective;
  double gbytes = 0;
  double copy_in = 0;
};

// Gradient buckets of `params` parameters of chunk `c`, reduced over the data-parallel group `g` (dp
// for the dense parameters, edp for the routed experts').
void AddBuckets(double params, int c, const net::GroupLayout& g, const Reduction& how, const StepContext& ctx,
                bool experts, std::vector<GradBucket>& out) {
  if (g.size <= 1 || params <= 0) return;
  const net::Collective reduce = how.collective;
  const double bucket = std::max(kMaxBucketParams, 1e6 * g.size);
  const int n = static_cast<int>(std::clamp(std::ceil(params / bucket), 1.0, double{kMaxBucketsPerGroup}));
  const Bytes bytes(params / n * how.gbytes);
  Duration t = ctx.comm->Time(reduce, bytes, g, ctx.fabric);
  if (how.copy_in > 0)
    t += ctx.compute->MemoryBound(Bytes(params / n * how.copy_in), Flops(0), cost::MemoryKind::kCopy);
  const char* collective = reduce == net::Collective::kReduceScatter ? "reduce_scatter" : "all_reduce";
  for (int i = 0; i < n; ++i)
    out.push_back({c, double(i + 1) / n, t, bytes, collective, experts ? "edp" : "dp"});
}

// The data-parallel groups of a pipeline rank's weights: dense parameters over dp (dp x cp ranks), routed
// experts over edp (ranks at stride etp * ep).
struct DpGroups {
  int dp = 1, edp = 1;
  net::GroupLayout dense, experts;
};

// What one pipeline rank holds, summed over its chunks.
struct RankParams {
  double params = 0, experts = 0, lookup = 0;
  int layers = 0;
};

// Autograd's in-place accumulation into .grad for every micro-batch after the first (recipes bf16 and
// autocast; kAutogradAccumulate*); under ZeRO-3 each rank accumulates its shard.
Duration AutogradAccumulation(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                              const DpGroups& g, const RankParams& rp) {
  const double bytes = o.training.recipe == Recipe::kAutocast ? kAutogradAccumulateBytesPerFp32Param
                       : o.training.recipe == Recipe::kBf16   ? kAutogradAccumulateBytesPerBf16Param
                                                              : 0.0;
  if (bytes == 0.0 || plan.micro_batches <= 1) return Duration{};
  const double local = (rp.params + rp.experts) / (o.parallel.zero >= 3 ? g.dp : 1);
  return ctx.compute->MemoryBound(Bytes(local * bytes), Flops(0), cost::MemoryKind::kCopy) *
         static_cast<int64_t>(plan.micro_batches - 1);
}

// The optimizer step over the rank's shard, with autocast's casts, autograd's or DeepSpeed's per-micro-batch
// gradient accumulation (priced here, run in the passes).
void AddOptimizer(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx, const DpGroups& g,
                  const RankParams& rp, StepProgram& prog) {
  const int zero = o.parallel.zero;
  const double shard = zero >= 1 ? rp.params / g.dp + rp.experts / g.edp : rp.params + rp.experts;
  Duration opt = ctx.compute->MemoryBound(Bytes(shard * AdamBytesPerParam(o.training.recipe)),
                                          Flops(shard * 12), cost::MemoryKind::kOptimizer);
  Duration casts;
  if (o.training.recipe == Recipe::kAutocast) {
    const double local = (rp.params - rp.lookup + rp.experts) / (zero >= 3 ? g.dp : 1);
    casts = ctx.compute->MemoryBound(Bytes(local * kAutocastCastBytesPerParam), Flops(0),
                                     cost::MemoryKind::kCopy) *
            static_cast<int64_t>(plan.micro_batches);
  }
  if (o.training.grad_accumulation == GradAccumulation::kCastAdd)  // every gradient, every micro-batch
    casts += ctx.compute->MemoryBound(Bytes((rp.params + rp.experts) * kCastAddBytesPerParam), Flops(0),
                                      cost::MemoryKind::kCopy) *
             static_cast<int64_t>(plan.micro_batches);
  else
    casts += AutogradAccumulation(o, plan, ctx, g, rp);
  prog.optimizer.push_back(opt + casts);
  prog.optimizer_casts.push_back(casts);
}

// The sharded optimizer's parameter all-gather after the step (ZeRO >= 1); with overlap_param_gather, hidden
// behind the next step's first forward, layer by layer, which it slows down (contention).
void AddParamGather(const TrainOptions& o, const StepContext& ctx, const ChunkCostModel& costs, int r,
                    const DpGroups& g, const RankParams& rp, StepProgram& prog) {
  const bool gathers = o.parallel.zero >= 1 && g.dp > 1;
  Duration gather, slowed;
  if (gathers) {
    gather = ctx.comm->Time(net::Collective::kAllGather, Bytes(rp.params * 2.0), g.dense, ctx.fabric);
    if (rp.experts > 0)
      gather += ctx.comm->Time(net::Collective::kAllGather, Bytes(rp.experts * 2.0), g.experts, ctx.fabric);
    if (o.parallel.overlap_param_gather) {
      const Duration forward = costs.Get(r, 0).forward.Total(), hidden = std::min(gather, forward);
      const double c = o.parallel.overlap_contention;
      gather -= hidden;
      slowed = hidden * (c / (1 + c));
    }
  }
  prog.param_gather.push_back(gather);
  prog.param_gather_contention.push_back(slowed);
  prog.param_gather_bytes.push_back(gathers ? Bytes((rp.params + rp.experts) * 2.0) : Bytes(0));
}

// ZeRO-3's per-chunk parameter gather, layer by layer, with FSDP2's copies around it (sharding: fsdp2).
void AddZero3Gather(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                    const DpGroups& g, const RankParams& rp, StepProgram& prog) {
  if (o.parallel.zero < 3 || g.dp <= 1) return;
  const double chunk_params = rp.params / plan.chunks;
  prog.zero3_gather_bytes.push_back(Bytes(chunk_params * 2.0));
  prog.zero3_layers.push_back(std::max(1, rp.layers / plan.chunks));
  Duration gather =
      ctx.comm->Time(net::Collective::kAllGather, Bytes(chunk_params * 2.0), g.dense, ctx.fabric);
  Duration copy_out;
  if (o.parallel.sharding == Sharding::kFsdp2) {
    gather += ctx.compute->MemoryBound(Bytes(chunk_params / g.dp * kFsdp2GatherCopyInBytesPerShardParam),
                                       Flops(0), cost::MemoryKind::kCopy);
    copy_out = ctx.compute->MemoryBound(Bytes(chunk_params * kFsdp2CopyOutBytesPerParam), Flops(0),
                                        cost::MemoryKind::kCopy);
  }
  prog.zero3_gather.push_back(gather);
  prog.zero3_copy_out.push_back(copy_out);
}

}  // namespace

// Data-parallel gradient reduction buckets, the optimizer and parameter gathering per pipeline rank, over the
// weight group. Routed-expert parameters are reduced, sharded and gathered over their expert-data-parallel
// group instead of dp.
void AddDataParallelWork(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                         const ChunkCostModel& costs, StepProgram& prog) {
  const int dp = plan.WeightGroup(), zero = o.parallel.zero, edp = plan.edp;
  const int dp_per_node = std::clamp(ctx.gpus_per_node / plan.tp, 1, dp);  // cp and dp ranks follow tp
  const DpGroups g{
      dp, edp, {dp, dp_per_node}, {edp, std::clamp(ctx.gpus_per_node / (plan.ep * plan.etp), 1, edp)}};
  const bool scatter = zero >= 1 && o.parallel.grad_reduce == GradReduce::kSharded;
  const net::Collective reduce = scatter ? net::Collective::kReduceScatter : net::Collective::kAllReduce;
  const double gbytes = StateBytes(o.training).gradients;
  const bool fsdp2 = zero >= 3 && o.parallel.sharding == Sharding::kFsdp2;
  const Reduction how{
      reduce, gbytes,
      fsdp2 ? (DefersGradReduce(o.parallel) ? gbytes : hw::DTypeBytes(hw::DType::kBf16)) + gbytes : 0.0};
  prog.buckets.resize(plan.pp);
  for (int r = 0; r < plan.pp; ++r) {
    RankParams rp;
    for (int c = 0; c < plan.chunks; ++c) {
      const ChunkCosts& cc = costs.Get(r, c);
      rp.params += cc.params;
      rp.experts += cc.expert_params;
      rp.lookup += cc.lookup_params;
      rp.layers += plan.LayersOf(r, c);
      AddBuckets(cc.params, c, g.dense, how, ctx, false, prog.buckets[r]);
      AddBuckets(cc.expert_params, c, g.experts, how, ctx, true, prog.buckets[r]);
    }
    AddOptimizer(o, plan, ctx, g, rp, prog);
    AddParamGather(o, ctx, costs, r, g, rp, prog);
    AddZero3Gather(o, plan, ctx, g, rp, prog);
  }
}

}  // namespace dlsim::train::internal
