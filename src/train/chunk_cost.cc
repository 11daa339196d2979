#include "dlsim/train/chunk_cost.h"

#include <algorithm>
#include <cmath>

#include "dlsim/model/dit.h"

namespace dlsim::train {
namespace {

using model::Op;
using model::OpKind;
using model::Shard;

constexpr double kActBytes = 2.0;  // bf16/fp16 activations

Duration MaxZero(Duration d) { return d > Duration::Zero() ? d : Duration::Zero(); }

// What one PriceOps call prices against: the scenario, the GPU, the parallel widths and the load of one GPU.
struct Pricing {
  const TrainOptions& o;
  const StepContext& ctx;
  const data::Load& load;
  const ParallelPlan& plan;
  int t, cp;          // tensor- and context-parallel sizes
  bool sp, layer;     // sequence parallelism; pricing a transformer layer (not the embedding or the head)
  double tokens;      // tokens through one GPU's GEMMs
  hw::DType gemm_dt;  // GEMM precision
  hw::DType act_dt;   // attention precision (bf16 under fp8 training)
  // MoE layers: routed copies the priced expert shard computes (0: not a MoE layer), and the size of
  // one dispatch all-to-all on one GPU.
  int64_t shard_tokens = 0;
  Bytes dispatch_bytes;
  // Diffusion transformers: text tokens of this GPU (split over cp like the latent ones) and of the whole
  // micro-batch, its samples, the keys of a joint attention per sequence; and whether a context-parallel
  // layout policy prices the self/joint attention (then only its stored bytes are counted here).
  bool dit = false;
  double text_tokens = 0, text_whole = 0, samples = 0;
  int64_t joint_seq = 0;
  bool skip_core = false;
};

// The tokens an operator runs on (model::TokenSet) on one GPU, before any tensor-parallel split.
double OpTokens(const Op& op, const Pricing& p) {
  switch (op.tokens) {
    case model::TokenSet::kLayer:
      return p.tokens;
    case model::TokenSet::kText:
      return p.text_tokens;
    case model::TokenSet::kTextWhole:
      return p.text_whole;
    case model::TokenSet::kJoint:
      return p.tokens + p.text_tokens;
    case model::TokenSet::kSample:
      return p.samples;
  }
  return p.tokens;
}

// Whether sequence parallelism splits an operator's tokens over tp (those split along the sequence).
bool SequenceSplit(const Op& op) {
  return op.tokens == model::TokenSet::kLayer || op.tokens == model::TokenSet::kText ||
         op.tokens == model::TokenSet::kJoint;
}

// The pricing inputs of `load` on one GPU of `plan`.
Pricing PricingOf(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                  const data::Load& load, bool layer) {
  const hw::DType gemm_dt = o.training.precision;
  const hw::DType act_dt = gemm_dt == hw::DType::kFp8 ? hw::DType::kBf16 : gemm_dt;
  return {.o = o,
          .ctx = ctx,
          .load = load,
          .plan = plan,
          .t = plan.tp,
          .cp = plan.cp,
          .sp = plan.sequence_parallel,
          .layer = layer,
          .tokens = static_cast<double>(load.tokens),
          .gemm_dt = gemm_dt,
          .act_dt = act_dt,
          .shard_tokens = 0,
          .dispatch_bytes = Bytes(0)};
}

// PricingOf with the DiT fields: text tokens per GPU (micro-batch x text_tokens, split over cp for the
// text stream), samples, and the joint attention's keys per sequence (latent + text tokens).
void AddDitPricing(const TrainOptions& o, const ParallelPlan& plan, Pricing& p) {
  if (o.model.arch != model::Arch::kDit) return;
  const double t = o.model.dit.text_tokens, b = plan.micro_batch;
  p.dit = true;
  p.samples = b;
  p.text_whole = b * t;
  p.text_tokens = std::ceil(b * t / plan.cp);
  p.joint_seq = static_cast<int64_t>(plan.seq_len) + o.model.dit.text_tokens;
}

// The cost of one operator on one GPU.
struct OpCost {
  Duration fwd, bwd;
  Duration recompute;  // forward time re-run in the backward (selective recomputation)
  double saved = 0;    // bytes kept for the backward
  Flops flops;         // what the operator adds to the layer's forward FLOPs
};

// Running sums over the operators of one PriceOps call, which communication overlaps with.
struct OverlapSums {
  Duration gemm_fwd, attn_fwd, attn_bwd;
  Flops attn_flops;  // core-attention forward FLOPs so far
};

// One GEMM with its weight split over the TP ranks (a routed expert's over the expert-TP ranks, on the
// shard's routed copies): forward, and the backward's data and weight gradients.
OpCost PriceGemm(const Op& op, const Pricing& p, OverlapSums& sums) {
  const cost::ComputeModel& cm = *p.ctx.compute;
  const int t = op.routed ? p.plan.etp : p.t;
  int64_t T = op.routed ? p.shard_tokens : p.load.tokens;
  if (op.tokens != model::TokenSet::kLayer) T = std::llround(OpTokens(op, p));
  if (op.shard == Shard::kTokens && p.sp && SequenceSplit(op)) T = (T + t - 1) / t;  // the rank's own tokens
  int64_t n = op.n, k = op.k;
  if (op.shard == Shard::kColumn) n = (n + t - 1) / t;
  if (op.shard == Shard::kRow) k = (k + t - 1) / t;
  OpCost c;
  if (op.routed) {
    // Megatron-Core's grouped GEMM: one problem per local expert, the shard's copies spread evenly over them.
    const int64_t local = std::max(1, p.o.model.moe.experts / p.plan.ep);
    const int64_t per_expert = (T + local - 1) / local;
    c.fwd = cm.Gemm({per_expert, n, k, local}, p.gemm_dt);
    c.bwd = cm.Gemm({per_expert, k, n, local}, p.gemm_dt) + cm.Gemm({k, n, per_expert, local}, p.gemm_dt);
  } else {
    c.fwd = cm.Gemm({T, n, k, 1}, p.gemm_dt);
    c.bwd = cm.Gemm({T, k, n, 1}, p.gemm_dt) + cm.Gemm({k, n, T, 1}, p.gemm_dt);
  }
  sums.gemm_fwd += c.fwd;
  const double tokens = op.routed || op.shard == Shard::kTokens || op.tokens != model::TokenSet::kLayer
                            ? static_cast<double>(T)
                            : p.tokens;
  c.flops = Flops(2.0 * tokens * n * k);
  // A column GEMM's input is whole on every rank without sp (and for the gathered routed copies); a
  // replicated GEMM's too; a row GEMM's input is split.
  const bool whole = (op.shard == Shard::kColumn && (!p.sp || op.routed)) || op.shard == Shard::kReplicated ||
                     op.shard == Shard::kTokens;
  c.saved = op.saved_bytes_per_token * tokens / (whole ? 1 : t);
  // FP8 training (Transformer Engine) keeps the fp8-cast GEMM input for the weight
  // gradient: one byte per element instead of two.
  if (p.gemm_dt == hw::DType::kFp8) c.saved *= 0.5;
  return c;
}

// Adds one block of Megatron-2021 core attention to `c`: batched QK^T and AV GEMMs over the full score
// matrix, fused scale-mask-softmax and dropout as memory-bound kernels.
void AddUnfusedAttention(const data::AttentionBlock& blk, const Pricing& p, int64_t heads, int64_t d,
                         OpCost& c, Flops& attn_flops) {
  const cost::ComputeModel& cm = *p.ctx.compute;
  const hw::DType act_dt = p.act_dt;
  const int64_t bh = blk.count * heads, sq = blk.seq_q, sk = blk.seq_kv;
  const double scores = static_cast<double>(bh) * sq * sk;
  const double drop = p.o.model.dropout > 0 ? 1.0 : 0.0;
  c.fwd += cm.Gemm({sq, sk, d, bh}, act_dt) + cm.Gemm({sq, d, sk, bh}, act_dt) +
           cm.MemoryBound(Bytes(scores * 2 * kActBytes), Flops(scores * 4)) +
           cm.MemoryBound(Bytes(scores * drop * (2 * kActBytes + 1)), Flops(scores * drop));
  c.bwd += cm.Gemm({sq, d, sk, bh}, act_dt) + cm.Gemm({sk, d, sq, bh}, act_dt) +
           cm.Gemm({sq, sk, d, bh}, act_dt) + cm.Gemm({sk, d, sq, bh}, act_dt) +
           cm.MemoryBound(Bytes(scores * 3 * kActBytes), Flops(scores * 4)) +
           cm.MemoryBound(Bytes(scores * drop * (2 * kActBytes + 1)), Flops(scores * drop));
  attn_flops += Flops(4.0 * scores * d);
}

OpCost PriceDitAttention(const Op& op, const Pricing& p, OverlapSums& sums);

// Core attention over every block of the load (FlashAttention or unfused), with its heads split over TP.
OpCost PriceAttention(const Op& op, const Pricing& p, OverlapSums& sums) {
  if (p.dit || op.attention_kind != model::AttentionKind::kSelf) return PriceDitAttention(op, p, sums);
  const model::ModelSpec& m = p.o.model;
  const int64_t heads = std::max<int64_t>(1, m.heads / p.t);
  const int64_t kv = std::max<int64_t>(1, m.kv_heads / p.t);
  const int64_t d = m.head_dim();
  OpCost c;
  double key_positions = 0;  // sum over queries of keys scored (s^2 tensors when unfused)
  std::vector<cost::AttentionShape> flash_blocks;
  for (const data::AttentionBlock& blk : p.load.attention) {
    if (blk.count <= 0 || blk.seq_q <= 0) continue;
    if (p.o.training.attention == model::AttentionImpl::kFlash) {
      flash_blocks.push_back({blk.count, heads, kv, blk.seq_q, blk.seq_kv, d, blk.causal});
      sums.attn_flops += flash_blocks.back().ForwardFlops();
    } else {
      AddUnfusedAttention(blk, p, heads, d, c, sums.attn_flops);
    }
    key_positions += static_cast<double>(blk.count) * blk.seq_q * blk.seq_kv;
  }
  // FlashAttention's variable-length kernel runs every document of the load in one launch.
  if (!flash_blocks.empty()) {
    c.fwd += p.ctx.compute->AttentionForwardVarlen(flash_blocks, p.act_dt);
    c.bwd += p.ctx.compute->AttentionBackwardVarlen(flash_blocks, p.act_dt);
  }
  sums.attn_fwd += c.fwd;
  sums.attn_bwd += c.bwd;
  c.flops = sums.attn_flops;
  c.saved = op.saved_bytes_per_token * p.tokens / p.t;
  const Recompute recompute = p.o.parallel.recompute;
  if (recompute == Recompute::kNone)
    c.saved += op.saved_bytes_per_token_per_seq / m.heads * heads * key_positions;
  if (recompute == Recompute::kSelective) c.recompute = c.fwd;
  return c;
}

// One attention block of a DiT operator: joint (latent + text of this GPU's share against all), cross (this
// GPU's latent queries against the whole text) or the text refiner's (the whole text against itself; its
// heads are not split over tp); self: the load's block.
data::AttentionBlock DitBlockOf(const Op& op, const Pricing& p) {
  const int64_t cp = p.cp, b = std::llround(p.samples);
  switch (op.attention_kind) {
    case model::AttentionKind::kJoint:
      return {(p.joint_seq + cp - 1) / cp, p.joint_seq, b, false};
    case model::AttentionKind::kCross:
      return {(p.plan.seq_len + cp - 1) / cp, p.o.model.dit.text_tokens, b, false};
    case model::AttentionKind::kText:
      return {p.o.model.dit.text_tokens, p.o.model.dit.text_tokens, b, false};
    case model::AttentionKind::kSelf:
      break;
  }
  return p.load.attention.empty() ? data::AttentionBlock{0, 0, 0, false} : p.load.attention.front();
}

// A DiT's core attention: the block above with the model's heads (split over tp) or the refiner's; under a
// context-parallel layout policy the self/joint attention is priced there and only its stored bytes here.
OpCost PriceDitAttention(const Op& op, const Pricing& p, OverlapSums& sums) {
  const model::ModelSpec& m = p.o.model;
  const bool text = op.attention_kind == model::AttentionKind::kText;
  const int64_t heads = text ? m.dit.refiner_heads : std::max<int64_t>(1, m.heads / p.t);
  const int64_t kv = text ? heads : std::max<int64_t>(1, m.kv_heads / p.t);
  const int64_t d = text ? m.dit.refiner_hidden / std::max(1, m.dit.refiner_heads) : m.head_dim();
  const data::AttentionBlock blk = DitBlockOf(op, p);
  OpCost c;
  c.saved = op.saved_bytes_per_token * OpTokens(op, p) / (text ? 1 : p.t);
  const bool core =
      op.attention_kind == model::AttentionKind::kSelf || op.attention_kind == model::AttentionKind::kJoint;
  if ((p.skip_core && core) || blk.count <= 0 || blk.seq_q <= 0) return c;
  if (p.o.training.attention == model::AttentionImpl::kFlash) {
    const cost::AttentionShape shape{blk.count, heads, kv, blk.seq_q, blk.seq_kv, d, false};
    c.fwd = p.ctx.compute->AttentionForward(shape, p.act_dt);
    c.bwd = p.ctx.compute->AttentionBackward(shape, p.act_dt);
    c.flops = shape.ForwardFlops();
  } else {
    AddUnfusedAttention(blk, p, heads, d, c, c.flops);
    if (p.o.parallel.recompute == Recompute::kNone)
      c.saved += op.saved_bytes_per_token_per_seq / m.heads * heads * blk.Pairs();
  }
  sums.attn_fwd += c.fwd;
  sums.attn_bwd += c.bwd;
  sums.attn_flops += c.flops;
  if (p.o.parallel.recompute == Recompute::kSelective) c.recompute = c.fwd;
  return c;
}

// The cost model's kind of a memory-bound operator's access pattern.
cost::MemoryKind MemoryKindOf(model::Access access) {
  return access == model::Access::kNormalization ? cost::MemoryKind::kNormalization
         : access == model::Access::kGather      ? cost::MemoryKind::kGather
                                                 : cost::MemoryKind::kElementwise;
}

// A memory-bound operator (norm, elementwise, gather); its tokens split over TP when sharded or
// sequence-parallel.
OpCost PriceMemoryOp(const Op& op, const Pricing& p) {
  const cost::ComputeModel& cm = *p.ctx.compute;
  const bool split = op.shard == Shard::kInner || (op.shard == Shard::kTokens && p.sp && SequenceSplit(op));
  const double base = OpTokens(op, p);
  const double tok = op.routed ? static_cast<double>(p.shard_tokens) / p.plan.etp : split ? base / p.t : base;
  const cost::MemoryKind kind = MemoryKindOf(op.access);
  OpCost c;
  c.fwd = cm.MemoryBound(Bytes(op.bytes_per_token * tok), Flops(op.flops_per_token * tok), kind);
  c.bwd = cm.MemoryBound(Bytes(2 * op.bytes_per_token * tok), Flops(2 * op.flops_per_token * tok), kind);
  c.saved = op.saved_bytes_per_token * tok;
  return c;
}

// The cost of one operator of any kind.
OpCost PriceOp(const Op& op, const Pricing& p, OverlapSums& sums) {
  switch (op.kind) {
    case OpKind::kGemm:
      return PriceGemm(op, p, sums);
    case OpKind::kAttention:
      return PriceAttention(op, p, sums);
    case OpKind::kMemory:
      return PriceMemoryOp(op, p);
  }
  return {};
}

// Exposed communication of one forward and one backward pass.
struct PassComm {
  Duration fwd, bwd;
};

// Tensor-parallel communication: 2 all-reduces per layer per pass, or 2 all-gathers + 2
// reduce-scatters under sequence parallelism (Korthikanti et al. 2022, Figure 5), less what GEMM overlap
// hides.
// A DiT layer (`dit_row_tokens`: the tokens of its row-parallel GEMMs, one collective each) reduces what its
// row-parallel GEMMs produce; its embedding and final layer run whole on every TP rank.
PassComm TensorParallelComm(const Pricing& p, Duration gemm_fwd, double dit_row_tokens) {
  if (p.t <= 1 || (p.dit && !p.layer)) return {};
  const int t = p.t;
  const StepContext& ctx = p.ctx;
  const Bytes hidden_bytes((p.dit ? dit_row_tokens : p.tokens) * p.o.model.hidden * kActBytes);
  const net::GroupLayout tpg{t, std::min(t, ctx.gpus_per_node)};
  // A dense layer: attention and MLP; a MoE layer: attention and the shared experts (the routed ones
  // exchange tokens by all-to-all instead).
  const bool moe = p.shard_tokens > 0;
  const int count = p.dit ? 1 : !p.layer ? 1 : !moe ? 2 : p.o.model.moe.shared_experts > 0 ? 2 : 1;
  Duration pass;
  if (p.sp) {
    pass = (ctx.comm->Time(net::Collective::kAllGather, hidden_bytes, tpg, ctx.fabric) +
            ctx.comm->Time(net::Collective::kReduceScatter, hidden_bytes, tpg, ctx.fabric)) *
           int64_t{count};
  } else {
    pass = ctx.comm->Time(net::Collective::kAllReduce, hidden_bytes, tpg, ctx.fabric) * int64_t{count};
  }
  // Transformer Engine's userbuffer overlap pipelines GEMM chunks with NVLink transfers; it
  // only applies when the TP group sits inside one NVLink domain.
  const bool overlap = p.o.parallel.tp_comm_overlap && t <= ctx.gpus_per_node;
  const Duration hide = overlap ? gemm_fwd : Duration::Zero();
  return {MaxZero(pass - hide), MaxZero(pass - hide * int64_t{2})};
}

// Context parallelism: ring attention passes K and V around the cp ranks (cp - 1 steps),
// overlapped with the attention of the previous block; the backward also returns dK, dV.
PassComm RingAttentionComm(const Pricing& p, const OverlapSums& sums) {
  const int cp = p.cp;
  if (!(cp > 1 && p.layer && p.load.cp_bytes > Bytes(0)) || p.skip_core) return {};
  const int cp_per_node = std::max(1, std::min(cp, p.ctx.gpus_per_node / p.t));
  const net::GroupLayout ring{2, cp_per_node > 1 ? 2 : 1};
  const double steps = cp - 1;
  const Duration step =
      p.ctx.comm->Time(net::Collective::kSendRecv, p.load.cp_bytes / steps, ring, p.ctx.fabric);
  return {MaxZero(step * steps - sums.attn_fwd * (steps / cp)),
          MaxZero(step * (2 * steps) - sums.attn_bwd * (steps / cp))};
}

// Disaggregated core attention (DistCA): Q out, O back and the needed K/V go to attention
// servers and back. Ping-pong (DistCA section 4.1): a micro-batch runs as two nano-batches, and each
// nano-batch's transfers overlap the other's compute, its linear layers or its core attention, so the
// traffic hides behind the layer's whole compute (forward: GEMMs + attention; backward: about twice
// the forward GEMMs + the attention backward); what is left is exposed.
PassComm AttentionServerComm(const Pricing& p, const OverlapSums& sums) {
  if (!(p.layer && p.load.attention_server_bytes > Bytes(0))) return {};
  const net::GroupLayout pair{2, 1};
  const Duration ship =
      p.ctx.comm->Time(net::Collective::kSendRecv, p.load.attention_server_bytes, pair, p.ctx.fabric);
  return {MaxZero(ship - (sums.gemm_fwd + sums.attn_fwd)),
          MaxZero(ship * int64_t{2} - (sums.gemm_fwd * int64_t{2} + sums.attn_bwd))};
}

// Expert parallelism (Megatron-Core's all-to-all dispatcher): dispatch and combine all-to-alls over the
// ep ranks of the expert grid, and with expert-TP an all-gather of the shard's copies before the experts
// and a reduce-scatter after; the backward repeats them. Not overlapped. The slowest shard receives
// shard_tokens / etp copies per GPU; an all-to-all ends when its busiest rank does.
PassComm ExpertParallelComm(const Pricing& p) {
  const ParallelPlan& plan = p.plan;
  if (p.shard_tokens <= 0 || (plan.ep <= 1 && plan.etp <= 1)) return {};
  const StepContext& ctx = p.ctx;
  const double copy_bytes = p.o.model.hidden * kActBytes;
  const Bytes received(static_cast<double>(p.shard_tokens) / plan.etp * copy_bytes);
  const Bytes a2a = std::max(p.dispatch_bytes, received);
  const int ep_per_node = std::clamp(ctx.gpus_per_node / plan.etp, 1, plan.ep);
  Duration pass =
      ctx.comm->Time(net::Collective::kAllToAll, a2a, {plan.ep, ep_per_node}, ctx.fabric) * int64_t{2};
  if (plan.etp > 1) {
    const Bytes gathered(static_cast<double>(p.shard_tokens) * copy_bytes);
    const net::GroupLayout etpg{plan.etp, std::min(plan.etp, ctx.gpus_per_node)};
    pass += ctx.comm->Time(net::Collective::kAllGather, gathered, etpg, ctx.fabric) +
            ctx.comm->Time(net::Collective::kReduceScatter, gathered, etpg, ctx.fabric);
  }
  return {pass, pass};
}

// Raises a layer's pass times to the host's launch time: a layer cannot run faster than the framework issues
// its kernels (forward: the host time, backward: twice as many kernels).
void ApplyHostFloor(const Pricing& p, TaskCost& fwd, TaskCost& bwd) {
  const Duration host = p.ctx.layer_host_time;
  if (!(p.layer && host > Duration::Zero())) return;
  auto floor = [](TaskCost& c, Duration f) {
    if (c.Total() < f) c.compute += f - c.Total();
  };
  floor(fwd, host);
  floor(bwd, host * int64_t{2});
}

}  // namespace

// A layout policy's core attention of one layer (context_parallel.h) in the layer's costs, before the host
// floor and recomputation apply to the whole layer: kernels and DSV's predictor as compute, the exposed
// context-parallel communication, the FLOPs; selective recomputation re-runs the attention's forward.
void ChunkCostModel::AddCpAttention(const CpLayerCost& a, LayerCost& lc, Flops& attn_flops) const {
  lc.fwd.compute += a.fwd_compute;
  lc.bwd.compute += a.bwd_compute;
  lc.fwd.cp_comm += a.fwd_comm;
  lc.bwd.cp_comm += a.bwd_comm;
  lc.fwd_flops += a.flops;
  attn_flops += a.flops;
  if (o_.parallel.recompute == Recompute::kSelective) lc.recompute += a.fwd_compute;
}

data::Load UniformLoad(const ParallelPlan& plan, bool causal) {
  data::Load load;
  const int64_t b = plan.micro_batch, s = plan.seq_len, cp = plan.cp;
  load.tokens = b * s / cp;
  load.real_tokens = load.tokens;
  if (cp == 1) {
    load.attention.push_back({s, s, b, causal});
  } else if (!causal) {
    load.attention.push_back({s / cp, s, b, false});
  } else {
    // Rank 0 of the zigzag split holds chunks 0 and 2cp-1; every rank does the same work.
    const int64_t c = s / (2 * cp);
    load.attention.push_back({c, c, b, true});
    load.attention.push_back({c, s, b, true});
  }
  return load;
}

MoeVolumes MoeLayerVolumes(const model::ModelSpec& m, const ParallelPlan& plan, int64_t tokens,
                           double act_bytes) {
  MoeVolumes v;
  if (!m.moe.enabled()) return v;
  ExpertGroup& g = v.group;
  g.experts = m.moe.experts;
  g.ep = plan.ep;
  g.etp = plan.etp;
  g.top_k = m.moe.top_k;
  g.capacity_factor = m.moe.capacity_factor;
  g.tokens_per_gpu = plan.sequence_parallel ? (tokens + plan.tp - 1) / plan.tp : tokens;
  const int per_shard = g.experts / g.ep;
  const std::vector<double> uniform(per_shard, 1.0);
  const double capacity =
      g.capacity_factor > 0 ? std::ceil(g.capacity_factor * static_cast<double>(g.Copies()) / g.experts) : 0;
  v.balanced_shard_tokens = ComputedCopies(g.BalancedShard(), uniform.data(), per_shard, per_shard, capacity);
  v.dispatch_bytes = Bytes(static_cast<double>(g.tokens_per_gpu) * m.moe.top_k * m.hidden * act_bytes);
  return v;
}

namespace {

// A DiT's operators and parameters per GPU (model/dit.h): its first block kind (cross-attention or
// double-stream), its single-stream blocks after double-stream ones, the parts before and after the
// blocks (replicated over tp: they run whole on every rank).
struct DitParts {
  std::vector<Op> layer, single, embed, head;
  double layer_params = 0, single_params = 0, embed_params = 0, head_params = 0;
};
// Parameters of one block of kind `k` on one tensor-parallel rank: the modulation whole, the rest split.
double DitBlockParametersPerRank(const model::ModelSpec& m, model::DitBlockKind k, int tp) {
  const double whole = model::DitModulationParameters(m, k);
  return (model::DitBlockParameters(m, k) - whole) / tp + whole;
}

DitParts BuildDit(const model::ModelSpec& m, const model::LayerOptions& lo, int tp) {
  DitParts d;
  const model::DitBlockKind first = model::DitBlockOf(m, 0);
  d.layer = model::BuildDitBlockOps(m, first, lo);
  d.layer_params = DitBlockParametersPerRank(m, first, tp);
  if (first == model::DitBlockKind::kDoubleStream && m.layers > m.dit.double_blocks) {
    d.single = model::BuildDitBlockOps(m, model::DitBlockKind::kSingleStream, lo);
    d.single_params = DitBlockParametersPerRank(m, model::DitBlockKind::kSingleStream, tp);
  }
  d.embed = model::BuildDitEmbeddingOps(m, lo);
  d.head = model::BuildDitHeadOps(m, lo);
  d.embed_params = model::DitEmbeddingParameters(m);
  d.head_params = model::DitHeadParameters(m);
  return d;
}

// Text tokens of one GPU that travel with the latent ones (an MMDiT's text stream), per micro-batch.
double JointTextTokens(const TrainOptions& o, const ParallelPlan& plan) {
  const model::ModelSpec& m = o.model;
  if (m.arch != model::Arch::kDit || m.dit.cross_attention) return 0;
  return std::ceil(static_cast<double>(plan.micro_batch) * m.dit.text_tokens / plan.cp);
}

}  // namespace

ChunkCostModel::ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                               const CpAttentionPlan* cp_attention)
    : o_(o), plan_(plan), ctx_(ctx), cp_attention_(cp_attention) {
  model::LayerOptions lo;
  lo.attention = o.training.attention;
  lo.activation_bytes = kActBytes;
  if (o.model.arch == model::Arch::kDit) {
    DitParts d = BuildDit(o.model, lo, plan.tp);
    layer_ops_ = std::move(d.layer);
    single_ops_ = std::move(d.single);
    embed_ops_ = std::move(d.embed);
    head_ops_ = std::move(d.head);
    layer_params_ = d.layer_params;
    single_layer_params_ = d.single_params;
    embed_params_ = d.embed_params;
    head_params_ = d.head_params;
  } else {
    layer_ops_ = model::BuildLayerOps(o.model, lo);
    embed_ops_ = model::BuildEmbeddingOps(o.model, lo);
    head_ops_ = model::BuildHeadOps(o.model, lo);
    layer_params_ = o.model.LayerParameters() / plan.tp;
  }
  if (o.model.moe.enabled()) {
    moe_ops_ = model::BuildMoeLayerOps(o.model, lo);
    const double routed = o.model.moe.experts * o.model.ExpertParameters();
    moe_layer_params_ = (o.model.MoeLayerParameters() - routed) / plan.tp;
    expert_layer_params_ = routed / (static_cast<double>(plan.ep) * plan.etp);
  }
  // Pipeline p2p: the activation of one micro-batch (with an MMDiT's text stream), scattered across the TP
  // ranks.
  const double text = JointTextTokens(o, plan);
  const double tokens = static_cast<double>(plan.micro_batch) * plan.seq_len / plan.cp + text;
  const Bytes act(tokens * o.model.hidden * kActBytes / plan.tp);
  const int mp_below_pp = plan.tp * plan.cp * plan.dp;
  net::GroupLayout pair{2, mp_below_pp >= ctx.gpus_per_node ? 1 : 2};
  p2p_ = plan.pp > 1 ? ctx.comm->Time(net::Collective::kSendRecv, act, pair, ctx.fabric) : Duration::Zero();
  data::Load uniform_load = UniformLoad(plan, o.model.arch == model::Arch::kDecoder);
  // Ring attention: the local K and V (an MMDiT's joint attention: with the text share) travel cp-1 hops.
  uniform_load.cp_bytes =
      KvBytesPerToken() * ((static_cast<double>(uniform_load.tokens) + text) * (plan.cp - 1));
  uniform_load_ = uniform_load;
  moe_ = MoeLayerVolumes(o.model, plan, uniform_load.tokens, kActBytes);
  uniform_ = PriceLoad(uniform_load_);
  if (cp_attention_) PriceCpLayers();
  costs_.resize(plan.VirtualStages());
  for (int c = 0; c < plan.chunks; ++c)
    for (int r = 0; r < plan.pp; ++r) costs_[c * plan.pp + r] = Assemble(uniform_, r, c);
}

void ChunkCostModel::PriceCpLayers() {
  layer_costs_.clear();
  for (int l = 0; l < o_.model.layers; ++l) {
    const bool single = !single_ops_.empty() && l >= o_.model.dit.double_blocks;
    // Dense layers are alike (the policy prices them alike): price the first of each kind once.
    const bool repeat = !o_.sparsity && l > 0 && (!single || l > o_.model.dit.double_blocks);
    if (repeat) {
      layer_costs_.push_back(layer_costs_.back());
      continue;
    }
    layer_costs_.push_back(
        PriceOps(single ? single_ops_ : layer_ops_, uniform_load_, true, 0, &cp_attention_->layers[l]));
  }
}

ChunkCostModel::LoadCosts ChunkCostModel::PriceLoad(const data::Load& load) const {
  LoadCosts lc{PriceOps(layer_ops_, load, true),
               PriceOps(embed_ops_, load, false),
               PriceOps(head_ops_, load, false),
               {},
               {}};
  if (!single_ops_.empty()) lc.single = PriceOps(single_ops_, load, true);
  if (!moe_ops_.empty()) {
    const MoeVolumes v = MoeLayerVolumes(o_.model, plan_, load.tokens, kActBytes);
    lc.moe = PriceOps(moe_ops_, load, true, v.balanced_shard_tokens);
  }
  return lc;
}

std::vector<ChunkCosts> ChunkCostModel::PriceRouted(const std::vector<int64_t>& shard_tokens,
                                                    RoutedCache& cache) const {
  std::vector<ChunkCosts> out(plan_.VirtualStages());
  for (int c = 0; c < plan_.chunks; ++c) {
    for (int r = 0; r < plan_.pp; ++r) {
      int first = 0;
      const int n = MoeLayersOf(r, c, &first);
      std::map<int64_t, int> counts;  // routed copies -> layers (ordered: deterministic sums)
      for (int i = first; i < first + n; ++i) ++counts[shard_tokens[i]];
      MoeGroups groups;
      for (const auto& [tokens, layers] : counts) {
        auto it = cache.find(tokens);
        if (it == cache.end())
          it = cache.emplace(tokens, PriceOps(moe_ops_, uniform_load_, true, tokens)).first;
        groups.emplace_back(&it->second, layers);
      }
      out[c * plan_.pp + r] = Assemble(uniform_, r, c, &groups);
    }
  }
  return out;
}

int ChunkCostModel::MoeLayersOf(int rank, int chunk, int* first_moe) const {
  const int first = plan_.FirstLayerOf(rank, chunk), count = plan_.LayersOf(rank, chunk);
  const int dense = o_.model.moe.enabled() ? o_.model.moe.first_dense_layers : o_.model.layers;
  const int begin = std::max(first, dense), end = first + count;
  if (first_moe) *first_moe = std::max(0, begin - dense);
  return std::max(0, end - begin);
}

std::vector<ChunkCosts> ChunkCostModel::Price(const data::MicroBatch& mb) const {
  std::vector<ChunkCosts> worst(plan_.VirtualStages());
  bool first = true;
  for (const data::Load& load : mb.cp) {
    const LoadCosts lc = PriceLoad(load);
    for (int c = 0; c < plan_.chunks; ++c) {
      for (int r = 0; r < plan_.pp; ++r) {
        ChunkCosts x = Assemble(lc, r, c);
        if (mb.recompute) {  // chunkflow: activations dropped after the forward, recomputed
          x.backward.compute += x.forward.compute;
          x.backward.recompute += x.forward.compute;
          x.backward.tp_comm += x.forward.tp_comm;
          x.backward.cp_comm += x.forward.cp_comm;
          x.hardware_flops += x.model_flops * (1.0 / 3.0);
        }
        x.resident_state =
            KvBytesPerToken() * (2.0 * static_cast<double>(load.prefix_kv_tokens) * plan_.LayersOf(r, c));
        ChunkCosts& w = worst[c * plan_.pp + r];
        const Bytes act = std::max(x.activations, w.activations);
        const Bytes state = std::max(x.resident_state, w.resident_state);
        if (first || x.forward.Total() + x.backward.Total() > w.forward.Total() + w.backward.Total()) w = x;
        w.activations = act;
        w.resident_state = state;
      }
    }
    first = false;
  }
  return worst;
}

Bytes ChunkCostModel::KvBytesPerToken() const {
  const auto& m = o_.model;
  return Bytes(2.0 * std::max(1, m.kv_heads / plan_.tp) * m.head_dim() * kActBytes);
}

Bytes ChunkCostModel::QBytesPerToken() const {
  const auto& m = o_.model;
  return Bytes(static_cast<double>(std::max(1, m.heads / plan_.tp)) * m.head_dim() * kActBytes);
}

ChunkCostModel::LayerCost ChunkCostModel::PriceOps(const std::vector<Op>& ops, const data::Load& load,
                                                   bool layer, int64_t shard_tokens,
                                                   const CpLayerCost* attention) const {
  Pricing p = PricingOf(o_, plan_, ctx_, load, layer);
  AddDitPricing(o_, plan_, p);
  p.skip_core = layer && cp_attention_ != nullptr;
  p.shard_tokens = shard_tokens;
  if (shard_tokens > 0)
    p.dispatch_bytes = MoeLayerVolumes(o_.model, plan_, load.tokens, kActBytes).dispatch_bytes;
  LayerCost lc;
  OverlapSums sums;
  double row_tokens = 0;  // DiT: tokens of the row-parallel GEMMs
  for (const Op& op : ops) {
    if (op.kind == OpKind::kGemm && op.shard == Shard::kRow && !op.routed) row_tokens += OpTokens(op, p);
    const OpCost c = PriceOp(op, p, sums);
    lc.fwd.compute += c.fwd;
    lc.bwd.compute += c.bwd;
    lc.saved += Bytes(c.saved);
    lc.fwd_flops += c.flops;
    lc.recompute += c.recompute;
  }
  if (attention) AddCpAttention(*attention, lc, sums.attn_flops);
  const PassComm tp = TensorParallelComm(p, sums.gemm_fwd, row_tokens);
  lc.fwd.tp_comm = tp.fwd;
  lc.bwd.tp_comm = tp.bwd;
  const PassComm ring = RingAttentionComm(p, sums), server = AttentionServerComm(p, sums);
  lc.fwd.cp_comm += ring.fwd + server.fwd;
  lc.bwd.cp_comm += ring.bwd + server.bwd;
  const PassComm ep = ExpertParallelComm(p);
  lc.fwd.ep_comm = ep.fwd;
  lc.bwd.ep_comm = ep.bwd;
  ApplyHostFloor(p, lc.fwd, lc.bwd);
  FoldRecompute(lc, p.tokens, sums.attn_flops, layer);
  return lc;
}

void ChunkCostModel::FoldRecompute(LayerCost& lc, double tokens, Flops attn_flops, bool layer) const {
  lc.bwd.compute += lc.recompute;
  // Full recomputation re-runs the whole forward (communication included) in the backward
  // and keeps only the layer input.
  if (o_.parallel.recompute == Recompute::kFull && layer) {
    const bool sp = plan_.sequence_parallel;
    lc.saved_full_recompute = Bytes(tokens * o_.model.hidden * kActBytes / (sp ? plan_.tp : 1));
    lc.recompute = lc.fwd.compute;
    lc.bwd.compute += lc.fwd.compute;
    lc.bwd.tp_comm += lc.fwd.tp_comm;
    lc.bwd.cp_comm += lc.fwd.cp_comm;
    lc.bwd.ep_comm += lc.fwd.ep_comm;
    lc.recompute_flops = lc.fwd_flops;
  } else if (o_.parallel.recompute == Recompute::kSelective && layer) {
    lc.recompute_flops = attn_flops;
  }
  lc.bwd.recompute = lc.recompute;
}

ChunkCosts ChunkCostModel::Assemble(const LoadCosts& lc, int rank, int chunk, const MoeGroups* moe) const {
  const bool first = plan_.IsFirst(rank, chunk), last = plan_.IsLast(rank, chunk);
  ChunkCosts c;
  const int moe_layers = MoeLayersOf(rank, chunk, nullptr);
  const MoeGroups balanced = {{&lc.moe, moe_layers}};
  const MoeGroups& groups = moe ? *moe : balanced;
  auto add = [](TaskCost& into, const TaskCost& x, double k) {
    into.compute += x.compute * k;
    into.recompute += x.recompute * k;
    into.tp_comm += x.tp_comm * k;
    into.cp_comm += x.cp_comm * k;
    into.ep_comm += x.ep_comm * k;
  };
  const bool full = o_.parallel.recompute == Recompute::kFull;
  // Dense layers first, then the MoE layers by cost group.
  auto add_layers = [&](const LayerCost& layer, double k) {
    add(c.forward, layer.fwd, k);
    add(c.backward, layer.bwd, k);
    c.activations += full ? layer.saved_full_recompute * k : layer.saved * k;
    if (full) c.recompute_working_set = std::max(c.recompute_working_set, layer.saved);
    c.model_flops += layer.fwd_flops * (3.0 * k);
    c.hardware_flops += layer.fwd_flops * (3.0 * k) + layer.recompute_flops * k;
  };
  const int single = SingleLayersOf(rank, chunk);
  const double L = plan_.LayersOf(rank, chunk) - moe_layers - single;
  if (layer_costs_.empty()) {
    add_layers(lc.layer, L);
    if (single > 0) add_layers(lc.single, single);
  } else {  // a layout policy's attention differs by layer
    const int from = plan_.FirstLayerOf(rank, chunk);
    for (int l = from; l < from + plan_.LayersOf(rank, chunk); ++l) add_layers(layer_costs_[l], 1);
  }
  c.params = L * layer_params_ + single * single_layer_params_;
  for (const auto& [cost, count] : groups)
    if (count > 0) add_layers(*cost, count);
  c.params += moe_layers * moe_layer_params_;
  c.expert_params = moe_layers * expert_layer_params_;
  if (o_.model.arch == model::Arch::kDit) {
    AddDitEnds(lc, first, last, c);
    return c;
  }
  const double emb_params = static_cast<double>(o_.model.vocab) * o_.model.hidden / plan_.tp;
  if (first) {
    add(c.forward, lc.embed.fwd, 1);
    add(c.backward, lc.embed.bwd, 1);
    c.params += emb_params;
    c.activations += lc.embed.saved;
  }
  if (last) {
    add(c.forward, lc.head.fwd, 1);
    add(c.backward, lc.head.bwd, 1);
    // An untied head has its own matrix; a tied one keeps a copy on the last stage when pp > 1.
    if (!o_.model.tied_embeddings || !first) c.params += emb_params;
    c.activations += lc.head.saved;
    c.model_flops += lc.head.fwd_flops * 3.0;
    c.hardware_flops += lc.head.fwd_flops * 3.0;
  }
  return c;
}

void ChunkCostModel::AddDitEnds(const LoadCosts& lc, bool first, bool last, ChunkCosts& c) const {
  auto add = [&](const LayerCost& x, TaskCost& fwd, TaskCost& bwd) {
    fwd.compute += x.fwd.compute;
    bwd.compute += x.bwd.compute;
    c.activations += x.saved;
    c.model_flops += x.fwd_flops * 3.0;
    c.hardware_flops += x.fwd_flops * 3.0;
  };
  if (first) {
    add(lc.embed, c.forward, c.backward);
    c.params += embed_params_;
  }
  if (last) {
    add(lc.head, c.forward, c.backward);
    c.params += head_params_;
  }
}

int ChunkCostModel::SingleLayersOf(int rank, int chunk) const {
  if (single_ops_.empty()) return 0;
  const int first = plan_.FirstLayerOf(rank, chunk), end = first + plan_.LayersOf(rank, chunk);
  return std::max(0, end - std::max(first, o_.model.dit.double_blocks));
}

}  // namespace dlsim::train
