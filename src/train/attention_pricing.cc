#include <algorithm>
#include <vector>

#include "op_pricing.h"

namespace dlsim::train::internal {
namespace {

using model::Op;

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
  const cost::GemmShape transposed{sk, d, sq, bh,
                                   cost::GemmLayout::kWeightGradient};  // dV = P^T dO, dK = dS^T Q
  c.bwd += cm.Gemm({sq, d, sk, bh}, act_dt) + cm.Gemm(transposed, act_dt) + cm.Gemm({sq, sk, d, bh}, act_dt) +
           cm.Gemm(transposed, act_dt) + cm.MemoryBound(Bytes(scores * 3 * kActBytes), Flops(scores * 4)) +
           cm.MemoryBound(Bytes(scores * drop * (2 * kActBytes + 1)), Flops(scores * drop));
  attn_flops += Flops(4.0 * scores * d);
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
    const cost::AttentionShape shape{blk.count,  heads, kv,    blk.seq_q,
                                     blk.seq_kv, d,     false, p.o.training.attention_backend};
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

// FlashAttention's variable-length kernel over every document of the load in one launch, forward and
// backward, and its FLOPs, as one averaged layer: a sliding-window model's windowed layers
// (ModelSpec::sliding_window) skip the key blocks outside the window (the unfused path computes every score
// and gains nothing).
void AddFlashAttention(std::vector<cost::AttentionShape>& blocks, const Pricing& p, OpCost& c, Flops& flops) {
  const cost::ComputeModel& cm = *p.ctx.compute;
  Flops f;
  for (const cost::AttentionShape& s : blocks) f += s.ForwardFlops();
  Duration fwd = cm.AttentionForwardVarlen(blocks, p.act_dt),
           bwd = cm.AttentionBackwardVarlen(blocks, p.act_dt);
  const double share = p.o.model.WindowedLayerShare();
  if (share > 0) {
    Flops fw;
    for (cost::AttentionShape& s : blocks) {
      s.window = p.o.model.sliding_window;
      fw += s.ForwardFlops();
    }
    fwd = fwd * (1 - share) + cm.AttentionForwardVarlen(blocks, p.act_dt) * share;
    bwd = bwd * (1 - share) + cm.AttentionBackwardVarlen(blocks, p.act_dt) * share;
    f = f * (1 - share) + fw * share;
  }
  c.fwd += fwd;
  c.bwd += bwd;
  flops += f;
}

}  // namespace

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
    if (p.o.training.attention == model::AttentionImpl::kFlash)
      flash_blocks.push_back(
          {blk.count, heads, kv, blk.seq_q, blk.seq_kv, d, blk.causal, p.o.training.attention_backend});
    else
      AddUnfusedAttention(blk, p, heads, d, c, sums.attn_flops);
    key_positions += static_cast<double>(blk.count) * blk.seq_q * blk.seq_kv;
  }
  if (!flash_blocks.empty()) AddFlashAttention(flash_blocks, p, c, sums.attn_flops);
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

}  // namespace dlsim::train::internal
