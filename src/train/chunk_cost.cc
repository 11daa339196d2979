#include "dlsim/train/chunk_cost.h"

#include <algorithm>
#include <cmath>

#include "dlsim/model/dit.h"
#include "dlsim/train/cp_merge.h"
#include "op_pricing.h"

namespace dlsim::train {
namespace {

using internal::AttentionServerComm;
using internal::ExpertParallelComm;
using internal::kActBytes;
using internal::MaxZero;
using internal::OpCost;
using internal::OpTokens;
using internal::OverlapSums;
using internal::PassComm;
using internal::PriceAttention;
using internal::PriceGemm;
using internal::PriceMemoryOp;
using internal::Pricing;
using internal::RingAttentionComm;
using internal::SequenceSplit;
using internal::TensorParallelComm;
using model::Op;
using model::OpKind;
using model::Shard;

// The pricing inputs of `load` on one GPU of `plan`. Under FP8 only the layers' GEMMs run in FP8: the
// embedding, output head and other ends are not Transformer Engine modules (Megatron-Core's output layer is
// a bf16 ColumnParallelLinear), so they run in bf16 like the attention.
Pricing PricingOf(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                  const data::Load& load, bool layer) {
  const hw::DType act_dt = o.training.precision == hw::DType::kFp8 ? hw::DType::kBf16 : o.training.precision;
  const hw::DType gemm_dt = layer ? o.training.precision : act_dt;
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

// Adds an operator's kernel time to its kind in a layer's forward and backward mix (the backward with the
// forward the operator re-runs under selective recomputation).
void AddToMix(OpKind kind, const OpCost& c, KernelMix& fwd, KernelMix& bwd) {
  Duration KernelMix::*slot = kind == OpKind::kGemm        ? &KernelMix::gemm
                              : kind == OpKind::kAttention ? &KernelMix::attention
                                                           : &KernelMix::memory;
  fwd.*slot += c.fwd;
  bwd.*slot += c.bwd + c.recompute;
}

// Raises a layer's pass times to the host's launch time: a layer cannot run faster than the framework issues
// its kernels (forward: the host time, backward: twice as many kernels).
void ApplyHostFloor(const Pricing& p, TaskCost& fwd, TaskCost& bwd) {
  const Duration host = p.host_scale == 1 ? p.ctx.layer_host_time : p.ctx.layer_host_time * p.host_scale;
  if (!(p.layer && host > Duration::Zero())) return;
  auto floor = [](TaskCost& c, Duration f) {
    if (c.Total() >= f) return;
    const Duration wait = f - c.Total();
    c.compute += wait;
    c.mix.host_wait += wait;
  };
  floor(fwd, host);
  floor(bwd, host * int64_t{2});
}

// PyTorch's experimental ring (parallel.cp_impl: pytorch): its K/V copies and fp32 output merges and gradient
// accumulation (train/cp_merge.h) as elementwise kernels of the layer's attention, for a query `q_width`
// elements wide on this rank. SDPA sees K/V repeated to the query heads (torchtitan's repeat_kv), so both
// widths are the query's.
void AddPytorchCpMerge(const Pricing& p, double q_width, TaskCost& fwd, TaskCost& bwd) {
  const CpMergeBytes b = CpMergeBytesPerToken(p.plan.cp, q_width, q_width);
  const auto add = [&](double bytes_per_token, TaskCost& into) {
    const Duration d = p.ctx.compute->MemoryBound(Bytes(bytes_per_token * p.tokens), Flops(0),
                                                  cost::MemoryKind::kElementwise);
    into.compute += d;
    into.mix.memory += d;
  };
  add(b.fwd, fwd);
  add(b.bwd, bwd);
}

}  // namespace

// A layout policy's core attention of one layer (context_parallel.h) in the layer's costs, before the host
// floor and recomputation apply to the whole layer: kernels and DSV's predictor as compute, the exposed
// context-parallel communication, the FLOPs; selective recomputation re-runs the attention's forward.
void ChunkCostModel::AddCpAttention(const CpLayerCost& a, LayerCost& lc, Flops& attn_flops) const {
  lc.fwd.compute += a.fwd_compute;
  lc.bwd.compute += a.bwd_compute;
  lc.fwd.mix.attention += a.fwd_compute;
  lc.bwd.mix.attention += a.bwd_compute;
  lc.fwd.cp_comm += a.fwd_comm;
  lc.bwd.cp_comm += a.bwd_comm;
  lc.fwd_flops += a.flops;
  attn_flops += a.flops;
  if (o_.parallel.recompute != Recompute::kSelective) return;
  lc.recompute += a.fwd_compute;
  lc.bwd.mix.attention += a.fwd_compute;
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

// The operator builders' options of a scenario's layers.
model::LayerOptions LayerOptionsOf(const TrainOptions& o) {
  model::LayerOptions lo;
  lo.attention = o.training.attention;
  lo.activation_bytes = kActBytes;
  lo.kernels = o.training.kernels;
  lo.norm_impl = o.training.norm_impl;
  lo.head_kernels = o.training.head_kernels;
  // Autocast keeps the residual stream (and so the norms and the rotary arithmetic) in the fp32 of its
  // weights.
  lo.residual_bytes = o.training.recipe == Recipe::kAutocast ? 4.0 : kActBytes;
  lo.moe_fused_permute = o.parallel.moe_dispatcher == MoeDispatcher::kHybridEp;
  return lo;
}

}  // namespace

ChunkCostModel::ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                               const CpAttentionPlan* cp_attention)
    : o_(o), plan_(plan), ctx_(ctx), cp_attention_(cp_attention) {
  const model::LayerOptions lo = LayerOptionsOf(o);
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
    if (lo.kernels == model::Kernels::kEager && !o.model.mla.enabled())
      host_scale_ = model::EagerHostScale(o.model, lo);
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
  p2p_bytes_ = act;
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

ChunkCostModel::LayerCost ChunkCostModel::MoeBlockCost() const {
  return PriceOps(model::BuildMoeBlockOps(o_.model, LayerOptionsOf(o_)), uniform_load_, true,
                  moe_.balanced_shard_tokens);
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
          x.backward.mix += x.forward.mix;
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
  p.host_scale = host_scale_;
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
    AddToMix(op.kind, c, lc.fwd.mix, lc.bwd.mix);
  }
  if (attention) AddCpAttention(*attention, lc, sums.attn_flops);
  if (layer && plan_.cp > 1 && o_.parallel.cp_impl == CpImpl::kPytorch)
    AddPytorchCpMerge(p, QBytesPerToken().ToBytes() / kActBytes, lc.fwd, lc.bwd);
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
    lc.bwd.mix += lc.fwd.mix;
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
    into.mix += x.mix * k;
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
    c.end_params += emb_params;
    if (!(o_.model.tied_embeddings && last)) c.lookup_params += emb_params;
    c.activations += lc.embed.saved;
  }
  if (last) {
    add(c.forward, lc.head.fwd, 1);
    add(c.backward, lc.head.bwd, 1);
    // An untied head has its own matrix; a tied one keeps a copy on the last stage when pp > 1.
    if (!o_.model.tied_embeddings || !first) {
      c.params += emb_params;
      c.end_params += emb_params;
    }
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
    fwd.mix += x.fwd.mix;
    bwd.mix += x.bwd.mix;
    c.activations += x.saved;
    c.model_flops += x.fwd_flops * 3.0;
    c.hardware_flops += x.fwd_flops * 3.0;
  };
  if (first) {
    add(lc.embed, c.forward, c.backward);
    c.params += embed_params_;
    c.end_params += embed_params_;
  }
  if (last) {
    add(lc.head, c.forward, c.backward);
    c.params += head_params_;
    c.end_params += head_params_;
  }
}

int ChunkCostModel::SingleLayersOf(int rank, int chunk) const {
  if (single_ops_.empty()) return 0;
  const int first = plan_.FirstLayerOf(rank, chunk), end = first + plan_.LayersOf(rank, chunk);
  return std::max(0, end - std::max(first, o_.model.dit.double_blocks));
}

}  // namespace dlsim::train
