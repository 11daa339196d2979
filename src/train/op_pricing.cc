// The GEMMs and memory-bound operators of a chunk on one GPU (op_pricing.h), and the memory kind of an
// operator's access pattern (chunk_cost.h).
#include "op_pricing.h"

#include <algorithm>

#include "dlsim/train/chunk_cost.h"

namespace dlsim::train {

cost::MemoryKind MemoryKindOf(model::Access access) {
  switch (access) {
    case model::Access::kNormalization:
      return cost::MemoryKind::kNormalization;
    case model::Access::kGather:
      return cost::MemoryKind::kGather;
    case model::Access::kPermute:
      return cost::MemoryKind::kPermute;
    case model::Access::kElementwise:
      break;
  }
  return cost::MemoryKind::kElementwise;
}

namespace internal {

using model::Op;
using model::Shard;

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
    c.bwd = cm.Gemm({per_expert, k, n, local}, p.gemm_dt) +
            cm.Gemm({k, n, per_expert, local, cost::GemmLayout::kWeightGradient}, p.gemm_dt);
  } else {
    c.fwd = cm.Gemm({T, n, k, 1}, p.gemm_dt);
    c.bwd = cm.Gemm({T, k, n, 1}, p.gemm_dt) +
            cm.Gemm({k, n, T, 1, cost::GemmLayout::kWeightGradient}, p.gemm_dt);
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
  const double bwd_bytes = op.bwd_bytes_per_token >= 0 ? op.bwd_bytes_per_token : 2 * op.bytes_per_token;
  c.bwd = cm.MemoryBound(Bytes(bwd_bytes * tok), Flops(2 * op.flops_per_token * tok), kind);
  c.saved = op.saved_bytes_per_token * tok;
  return c;
}

}  // namespace internal
}  // namespace dlsim::train
