#include "dlsim/train/chunk_cost.h"

#include <algorithm>
#include <cmath>

namespace dlsim::train {
namespace {

using model::Op;
using model::OpKind;
using model::Shard;

constexpr double kActBytes = 2.0;  // bf16/fp16 activations

Duration MaxZero(Duration d) { return d > Duration::Zero() ? d : Duration::Zero(); }

}  // namespace

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

ChunkCostModel::ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx)
    : o_(o), plan_(plan), ctx_(ctx) {
  model::LayerOptions lo;
  lo.attention = o.training.attention;
  lo.activation_bytes = kActBytes;
  layer_ops_ = model::BuildLayerOps(o.model, lo);
  embed_ops_ = model::BuildEmbeddingOps(o.model, lo);
  head_ops_ = model::BuildHeadOps(o.model, lo);
  layer_params_ = o.model.LayerParameters() / plan.tp;
  // Pipeline p2p: the activation of one micro-batch, scattered across the TP ranks.
  const double tokens = static_cast<double>(plan.micro_batch) * plan.seq_len / plan.cp;
  const Bytes act(tokens * o.model.hidden * kActBytes / plan.tp);
  const int mp_below_pp = plan.tp * plan.cp * plan.dp;
  net::GroupLayout pair{2, mp_below_pp >= ctx.gpus_per_node ? 1 : 2};
  p2p_ = plan.pp > 1 ? ctx.comm->Time(net::Collective::kSendRecv, act, pair, ctx.fabric) : Duration::Zero();
  data::Load uniform_load = UniformLoad(plan, o.model.arch == model::Arch::kDecoder);
  // Ring attention: the local K and V travel cp-1 hops.
  uniform_load.cp_bytes = KvBytesPerToken() * static_cast<double>(uniform_load.tokens * (plan.cp - 1));
  const LoadCosts uniform = PriceLoad(uniform_load);
  costs_.resize(plan.VirtualStages());
  for (int c = 0; c < plan.chunks; ++c)
    for (int r = 0; r < plan.pp; ++r) costs_[c * plan.pp + r] = Assemble(uniform, r, c);
}

ChunkCostModel::LoadCosts ChunkCostModel::PriceLoad(const data::Load& load) const {
  return {PriceOps(layer_ops_, load, true), PriceOps(embed_ops_, load, false),
          PriceOps(head_ops_, load, false)};
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
        ChunkCosts& w = worst[c * plan_.pp + r];
        const Bytes act = std::max(x.activations, w.activations);
        if (first || x.forward.Total() + x.backward.Total() > w.forward.Total() + w.backward.Total()) w = x;
        w.activations = act;
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
                                                   bool layer) const {
  const auto& m = o_.model;
  const int t = plan_.tp, cp = plan_.cp;
  const bool sp = plan_.sequence_parallel;
  const double tokens = static_cast<double>(load.tokens);  // tokens through one GPU's GEMMs
  const int64_t T = load.tokens;
  const hw::DType gemm_dt = o_.training.precision;
  const hw::DType act_dt = gemm_dt == hw::DType::kFp8 ? hw::DType::kBf16 : gemm_dt;
  const cost::ComputeModel& cm = *ctx_.compute;
  LayerCost lc;
  Duration gemm_fwd, attn_fwd, attn_bwd;
  Flops attn_flops;
  for (const Op& op : ops) {
    Duration fwd, bwd;
    double saved = 0;
    switch (op.kind) {
      case OpKind::kGemm: {
        int64_t n = op.n, k = op.k;
        if (op.shard == Shard::kColumn) n = (n + t - 1) / t;
        if (op.shard == Shard::kRow) k = (k + t - 1) / t;
        fwd = cm.Gemm({T, n, k, 1}, gemm_dt);
        bwd = cm.Gemm({T, k, n, 1}, gemm_dt) + cm.Gemm({k, n, T, 1}, gemm_dt);
        gemm_fwd += fwd;
        lc.fwd_flops += Flops(2.0 * tokens * n * k);
        saved = op.saved_bytes_per_token * tokens / (op.shard == Shard::kColumn && !sp ? 1 : t);
        // FP8 training (Transformer Engine) keeps the fp8-cast GEMM input for the weight
        // gradient: one byte per element instead of two.
        if (gemm_dt == hw::DType::kFp8) saved *= 0.5;
        break;
      }
      case OpKind::kAttention: {
        const int64_t heads = std::max<int64_t>(1, m.heads / t);
        const int64_t kv = std::max<int64_t>(1, m.kv_heads / t);
        const int64_t d = m.head_dim();
        double key_positions = 0;  // sum over queries of keys scored (s^2 tensors when unfused)
        std::vector<cost::AttentionShape> flash_blocks;
        for (const data::AttentionBlock& blk : load.attention) {
          if (blk.count <= 0 || blk.seq_q <= 0) continue;
          if (o_.training.attention == model::AttentionImpl::kFlash) {
            flash_blocks.push_back({blk.count, heads, kv, blk.seq_q, blk.seq_kv, d, blk.causal});
            attn_flops += flash_blocks.back().ForwardFlops();
          } else {
            // Megatron-2021 core attention: batched QK^T and AV GEMMs over the full score
            // matrix, fused scale-mask-softmax and dropout as memory-bound kernels.
            const int64_t bh = blk.count * heads, sq = blk.seq_q, sk = blk.seq_kv;
            const double scores = static_cast<double>(bh) * sq * sk;
            const double drop = m.dropout > 0 ? 1.0 : 0.0;
            fwd += cm.Gemm({sq, sk, d, bh}, act_dt) + cm.Gemm({sq, d, sk, bh}, act_dt) +
                   cm.MemoryBound(Bytes(scores * 2 * kActBytes), Flops(scores * 4)) +
                   cm.MemoryBound(Bytes(scores * drop * (2 * kActBytes + 1)), Flops(scores * drop));
            bwd += cm.Gemm({sq, d, sk, bh}, act_dt) + cm.Gemm({sk, d, sq, bh}, act_dt) +
                   cm.Gemm({sq, sk, d, bh}, act_dt) + cm.Gemm({sk, d, sq, bh}, act_dt) +
                   cm.MemoryBound(Bytes(scores * 3 * kActBytes), Flops(scores * 4)) +
                   cm.MemoryBound(Bytes(scores * drop * (2 * kActBytes + 1)), Flops(scores * drop));
            attn_flops += Flops(4.0 * scores * d);
          }
          key_positions += static_cast<double>(blk.count) * blk.seq_q * blk.seq_kv;
        }
        // FlashAttention's variable-length kernel runs every document of the load in one launch.
        if (!flash_blocks.empty()) {
          fwd += cm.AttentionForwardVarlen(flash_blocks, act_dt);
          bwd += cm.AttentionBackwardVarlen(flash_blocks, act_dt);
        }
        attn_fwd += fwd;
        attn_bwd += bwd;
        lc.fwd_flops += attn_flops;
        saved = op.saved_bytes_per_token * tokens / t;
        if (o_.parallel.recompute == Recompute::kNone)
          saved += op.saved_bytes_per_token_per_seq / m.heads * heads * key_positions;
        if (o_.parallel.recompute == Recompute::kSelective) lc.recompute += fwd;
        break;
      }
      case OpKind::kMemory: {
        const bool split = op.shard == Shard::kInner || (op.shard == Shard::kTokens && sp);
        const double tok = split ? tokens / t : tokens;
        const cost::MemoryKind kind = op.access == model::Access::kNormalization
                                          ? cost::MemoryKind::kNormalization
                                      : op.access == model::Access::kGather ? cost::MemoryKind::kGather
                                                                            : cost::MemoryKind::kElementwise;
        fwd = cm.MemoryBound(Bytes(op.bytes_per_token * tok), Flops(op.flops_per_token * tok), kind);
        bwd = cm.MemoryBound(Bytes(2 * op.bytes_per_token * tok), Flops(2 * op.flops_per_token * tok), kind);
        saved = op.saved_bytes_per_token * tok;
        break;
      }
    }
    lc.fwd.compute += fwd;
    lc.bwd.compute += bwd;
    lc.saved += Bytes(saved);
  }
  // Tensor-parallel communication: 2 all-reduces per layer per pass, or 2 all-gathers + 2
  // reduce-scatters under sequence parallelism (Korthikanti et al. 2022, Figure 5).
  const Bytes hidden_bytes(tokens * m.hidden * kActBytes);
  if (t > 1) {
    net::GroupLayout tpg{t, std::min(t, ctx_.gpus_per_node)};
    Duration pass;
    const int count = layer ? 2 : 1;
    if (sp) {
      pass = (ctx_.comm->Time(net::Collective::kAllGather, hidden_bytes, tpg, ctx_.fabric) +
              ctx_.comm->Time(net::Collective::kReduceScatter, hidden_bytes, tpg, ctx_.fabric)) *
             int64_t{count};
    } else {
      pass = ctx_.comm->Time(net::Collective::kAllReduce, hidden_bytes, tpg, ctx_.fabric) * int64_t{count};
    }
    // Transformer Engine's userbuffer overlap pipelines GEMM chunks with NVLink transfers; it
    // only applies when the TP group sits inside one NVLink domain.
    const bool overlap = o_.parallel.tp_comm_overlap && t <= ctx_.gpus_per_node;
    Duration hide = overlap ? gemm_fwd : Duration::Zero();
    lc.fwd.tp_comm = MaxZero(pass - hide);
    lc.bwd.tp_comm = MaxZero(pass - hide * int64_t{2});
  }
  // Context parallelism: ring attention passes K and V around the cp ranks (cp - 1 steps),
  // overlapped with the attention of the previous block; the backward also returns dK, dV.
  if (cp > 1 && layer && load.cp_bytes > Bytes(0)) {
    const int cp_per_node = std::max(1, std::min(cp, ctx_.gpus_per_node / t));
    net::GroupLayout ring{2, cp_per_node > 1 ? 2 : 1};
    const double steps = cp - 1;
    const Duration step =
        ctx_.comm->Time(net::Collective::kSendRecv, load.cp_bytes / steps, ring, ctx_.fabric);
    lc.fwd.cp_comm = MaxZero(step * steps - attn_fwd * (steps / cp));
    lc.bwd.cp_comm = MaxZero(step * (2 * steps) - attn_bwd * (steps / cp));
  }
  // Disaggregated core attention (DistCA): Q out, O back and the needed K/V go to attention
  // servers and back, overlapped with the linear layers of the other nano-batch (ping-pong).
  if (layer && load.attention_server_bytes > Bytes(0)) {
    net::GroupLayout pair{2, 1};
    const Duration ship =
        ctx_.comm->Time(net::Collective::kSendRecv, load.attention_server_bytes, pair, ctx_.fabric);
    lc.fwd.cp_comm += MaxZero(ship - gemm_fwd * 0.5);
    lc.bwd.cp_comm += MaxZero(ship * int64_t{2} - gemm_fwd);
  }
  // A layer cannot run faster than the framework issues its kernels: when the GPU work of a
  // layer is shorter than the host time to launch it (forward: host, backward: twice as
  // many kernels), the host sets the pace.
  if (layer && ctx_.layer_host_time > Duration::Zero()) {
    auto floor = [](TaskCost& c, Duration f) {
      if (c.Total() < f) c.compute += f - c.Total();
    };
    floor(lc.fwd, ctx_.layer_host_time);
    floor(lc.bwd, ctx_.layer_host_time * int64_t{2});
  }
  lc.bwd.compute += lc.recompute;
  // Full recomputation re-runs the whole forward (communication included) in the backward
  // and keeps only the layer input.
  if (o_.parallel.recompute == Recompute::kFull && layer) {
    lc.saved_full_recompute = Bytes(tokens * m.hidden * kActBytes / (sp ? t : 1));
    lc.recompute = lc.fwd.compute;
    lc.bwd.compute += lc.fwd.compute;
    lc.bwd.tp_comm += lc.fwd.tp_comm;
    lc.bwd.cp_comm += lc.fwd.cp_comm;
    lc.recompute_flops = lc.fwd_flops;
  } else if (o_.parallel.recompute == Recompute::kSelective && layer) {
    lc.recompute_flops = attn_flops;
  }
  lc.bwd.recompute = lc.recompute;
  return lc;
}

ChunkCosts ChunkCostModel::Assemble(const LoadCosts& lc, int rank, int chunk) const {
  const LayerCost& layer = lc.layer;
  const bool first = plan_.IsFirst(rank, chunk), last = plan_.IsLast(rank, chunk);
  ChunkCosts c;
  const double L = plan_.LayersOf(rank, chunk);
  auto add = [](TaskCost& into, const TaskCost& x, double k) {
    into.compute += x.compute * k;
    into.recompute += x.recompute * k;
    into.tp_comm += x.tp_comm * k;
    into.cp_comm += x.cp_comm * k;
  };
  add(c.forward, layer.fwd, L);
  add(c.backward, layer.bwd, L);
  c.params = L * layer_params_;
  const bool full = o_.parallel.recompute == Recompute::kFull;
  c.activations = full ? layer.saved_full_recompute * L : layer.saved * L;
  c.recompute_working_set = full ? layer.saved : Bytes(0);
  c.model_flops = layer.fwd_flops * (3.0 * L);
  c.hardware_flops = c.model_flops + layer.recompute_flops * L;
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

}  // namespace dlsim::train
