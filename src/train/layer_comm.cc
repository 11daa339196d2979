#include <algorithm>

#include "op_pricing.h"

namespace dlsim::train::internal {

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
  // Both overlaps pipeline GEMM chunks with NVLink transfers; they only apply when the TP group sits
  // inside one NVLink domain.
  if (t > ctx.gpus_per_node) return {pass, pass};
  switch (p.o.parallel.tp_comm_overlap) {
    case TpOverlap::kNone:
      return {pass, pass};
    case TpOverlap::kUserbuffers:
      return {MaxZero(pass - gemm_fwd), MaxZero(pass - gemm_fwd * int64_t{2})};
    case TpOverlap::kAsyncTp:
      // The forward graph's collectives only (a full recomputation re-runs this forward: FoldRecompute).
      return {pass - std::min(pass, gemm_fwd) * kAsyncTpHiddenShare, pass};
  }
  return {pass, pass};
}

namespace {

// All-gather CP (ParallelOptions::cp_comm): the group gathers every rank's K/V (cp_bytes is what one
// rank receives, so the gathered output is cp / (cp - 1) of it) before attention, and reduce-scatters
// dK/dV of the same size after the attention backward; on the compute stream, nothing hidden. Under
// selective recomputation the backward re-runs the core attention's forward, gather included.
PassComm AllGatherAttentionComm(const Pricing& p, const net::GroupLayout& group) {
  const Bytes gathered = p.load.cp_bytes * (static_cast<double>(group.size) / (group.size - 1));
  const Duration gather = p.ctx.comm->Time(net::Collective::kAllGather, gathered, group, p.ctx.fabric);
  const Duration scatter = p.ctx.comm->Time(net::Collective::kReduceScatter, gathered, group, p.ctx.fabric);
  const bool regather = p.o.parallel.recompute == Recompute::kSelective;
  return {gather, scatter + (regather ? gather : Duration::Zero())};
}

}  // namespace

// Context parallelism: ring attention passes K and V around the cp ranks (cp - 1 steps),
// overlapped with the attention of the previous block; the backward also returns dK, dV. Or the
// all-gather exchange (cp_comm: all_gather), exposed.
PassComm RingAttentionComm(const Pricing& p, const OverlapSums& sums) {
  const int cp = p.cp;
  if (!(cp > 1 && p.layer && p.load.cp_bytes > Bytes(0)) || p.skip_core) return {};
  const int cp_per_node = std::max(1, std::min(cp, p.ctx.gpus_per_node / p.t));
  if (p.o.parallel.cp_comm == CpComm::kAllGather) return AllGatherAttentionComm(p, {cp, cp_per_node});
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

namespace {

// Megatron-Core's all-gather dispatcher: every rank of the etp x ep group gathers the group's tokens
// (its own share: the tokens / tp of a sequence-parallel rank, or all of them without SP), runs its
// local experts on the copies routed to them, and the combine reduce-scatters the outputs back; the
// backward mirrors both. Not overlapped.
PassComm AllGatherDispatchComm(const Pricing& p) {
  const ParallelPlan& plan = p.plan;
  const int group = plan.ep * plan.etp;
  const double own = p.sp ? p.tokens / plan.tp : p.tokens;
  const Bytes gathered(own * group * p.o.model.hidden * kActBytes);
  const net::GroupLayout g{group, std::min(group, p.ctx.gpus_per_node)};
  const Duration pass = p.ctx.comm->Time(net::Collective::kAllGather, gathered, g, p.ctx.fabric) +
                        p.ctx.comm->Time(net::Collective::kReduceScatter, gathered, g, p.ctx.fabric);
  return {pass, pass};
}

}  // namespace

// Expert parallelism (Megatron-Core's all-to-all dispatcher): dispatch and combine all-to-alls over the
// ep ranks of the expert grid, and with expert-TP an all-gather of the shard's copies before the experts
// and a reduce-scatter after; the backward repeats them. Not overlapped. The slowest shard receives
// shard_tokens / etp copies per GPU; an all-to-all ends when its busiest rank does. Or the all-gather
// dispatcher (parallel.moe_dispatcher).
PassComm ExpertParallelComm(const Pricing& p) {
  const ParallelPlan& plan = p.plan;
  if (p.shard_tokens <= 0 || (plan.ep <= 1 && plan.etp <= 1)) return {};
  if (p.o.parallel.moe_dispatcher == MoeDispatcher::kAllGather) return AllGatherDispatchComm(p);
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

}  // namespace dlsim::train::internal
