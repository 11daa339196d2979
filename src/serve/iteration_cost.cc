#include "dlsim/serve/iteration_cost.h"

#include <algorithm>
#include <cmath>

#include "dlsim/serve/moe_step.h"

namespace dlsim::serve {
namespace {

// Token counts below this are tabulated at construction (one lookup per
// iteration).
constexpr int64_t kTableTokens = 8192;
// Logits counts up to this (a batch's requests) have their LM head tabulated at construction.
constexpr int64_t kTableLogits = 1024;
// Vidur's nccl_cpu_launch_overhead_ms: host cost of launching one NCCL
// collective.
constexpr Duration kNcclLaunchOverhead = Duration::Nanos(20'000);
// Vidur's attention_prefill_batching_overhead_fraction: merged prefills of
// several requests.
constexpr double kPrefillBatchingOverhead = 0.1;

class ProfiledCostModel final : public IterationCostModel {
 public:
  explicit ProfiledCostModel(const ProfiledCostInputs& in) : in_(in) {
    if (in.profile != nullptr) profile_ = *in.profile;
    has_profile_ = in.profile != nullptr;
    in_.profile = nullptr;
    const auto& m = in_.model;
    heads_ = std::max(1, m.heads / in_.tp);
    kv_heads_ = std::max(1, m.kv_heads / in_.tp);
    head_dim_ = m.head_dim();
    window_ = in_.engine.WindowOf(m);
    elem_ = hw::DTypeBytes(in_.dtype);
    if (in_.kernels == model::Kernels::kEager && !m.moe.enabled() && !m.mla.enabled())
      eager_ = EagerMemoryOps();
    table_.resize(kTableTokens + 1);
    embedding_.resize(kTableTokens + 1);
    for (int64_t t = 1; t <= kTableTokens; ++t) {
      table_[t] = ComputeLinear(t);
      embedding_[t] = Embedding(t);
    }
    lm_head_.resize(kTableLogits + 1);
    for (int64_t n = 1; n <= kTableLogits; ++n) lm_head_[n] = LmHead(n);
  }

  IterationTime Time(const BatchShape& b) const override {
    IterationTime out;
    const int64_t t = b.tokens();
    if (t <= 0) return out;
    Duration layer = t <= kTableTokens ? table_[t] : ComputeLinear(t);
    layer += PrefillAttention(b) + DecodeAttention(b);
    out.per_layer = layer;
    out.fixed = (t <= kTableTokens ? embedding_[t] : Embedding(t)) +
                (b.logits > 0 && b.logits <= kTableLogits ? lm_head_[b.logits] : LmHead(b.logits)) +
                PipelineSends(t);
    return out;
  }
  bool profiled() const override { return has_profile_; }

 private:
  // Token-level operators of one layer plus its two TP all-reduces.
  Duration ComputeLinear(int64_t t) const {
    Duration d;
    if (has_profile_) {
      d = Millis(profile_.LayerMs(static_cast<double>(t)));
    } else {
      d = RooflineLinear(t);
    }
    if (in_.tp > 1) d += AllReduceOnce(Bytes(static_cast<double>(t) * in_.model.hidden * elem_)) * int64_t{2};
    return d;
  }

  // One TP all-reduce of `msg` as the engine runs it (iteration_cost.h, ProfiledCostInputs::engine).
  Duration AllReduceOnce(Bytes msg) const {
    const Duration nccl = in_.collective->Time(net::Collective::kAllReduce, msg,
                                               {.size = in_.tp, .ranks_per_node = in_.tp}, in_.fabric) +
                          kNcclLaunchOverhead;
    if (in_.engine.allreduce == TpAllReduce::kCustom)
      return TpAllReduceTime(in_.engine, *in_.allreduce, msg.ToBytes(), in_.tp, in_.gpu.architecture,
                             !in_.fabric.pcie_only, nccl);
    const double large_mib =
        std::max(0.0, (msg - in_.overhead.large_message).ToMiB()) * 2.0 * (in_.tp - 1) / in_.tp;
    return nccl + in_.overhead.per_collective + in_.overhead.per_ring_step * int64_t{2 * (in_.tp - 1)} +
           in_.overhead.per_large_ring_mib * large_mib;
  }

  // A linear layer's GEMM (an expert's too): dense, Flash-LLM's sparse-weight kernel, or Marlin's W4A16 /
  // W8A16.
  Duration WeightGemm(const cost::GemmShape& g) const {
    if (in_.weight_quant != WeightQuant::kNone)
      return in_.compute->SparseWeightGemm(g, in_.dtype, 0.0, QuantizedWeightFormat(in_.weight_quant));
    if (in_.weight_sparsity > 0)
      return in_.compute->SparseWeightGemm(g, in_.dtype, in_.weight_sparsity, in_.sparse_format);
    return in_.compute->Gemm(g, in_.weight_dtype);
  }

  Duration RooflineLinear(int64_t t) const {
    const auto& m = in_.model;
    const int64_t h = m.hidden, ffn = m.ffn_hidden / in_.tp;
    const int64_t qkv = static_cast<int64_t>(heads_ + 2 * kv_heads_) * head_dim_;
    const cost::ComputeModel& c = *in_.compute;
    Duration d = WeightGemm({.m = t, .n = qkv, .k = h}) +
                 WeightGemm({.m = t, .n = h, .k = static_cast<int64_t>(heads_) * head_dim_});
    d += m.moe.enabled() ? MixedMlp(t) : DenseMlp(t, ffn);
    if (!eager_.empty()) return d + EagerMemoryBound(t);
    const double act = static_cast<double>(t) * h * elem_;
    // Two norms (read + write), rotary on q and k, the residual add.
    d += c.MemoryBound(Bytes(2 * act), Flops(5.0 * t * h)) * int64_t{2};
    d += c.MemoryBound(Bytes(2.0 * t * qkv * elem_), Flops(3.0 * t * qkv));
    d += c.MemoryBound(Bytes(3 * act), Flops(1.0 * t * h));
    return d;
  }

  // A dense MLP of `t` tokens and width `ffn` on one GPU: up (and gate), the activation (eager kernels:
  // among EagerMemoryBound's), down.
  Duration DenseMlp(int64_t t, int64_t ffn) const {
    const int64_t h = in_.model.hidden;
    const Duration gemms = WeightGemm({.m = t, .n = (in_.model.gated_mlp ? 2 : 1) * ffn, .k = h}) +
                           WeightGemm({.m = t, .n = h, .k = ffn});
    if (!eager_.empty()) return gemms;
    return gemms + in_.compute->MemoryBound(Bytes(3.0 * t * ffn * elem_), Flops(8.0 * t * ffn));
  }

  // Eager PyTorch's memory-bound kernels of one layer's forward (model::EagerLayerOps in the activations'
  // type): bytes and flops per token, those inside a TP region split by tp.
  std::vector<std::pair<double, double>> EagerMemoryOps() const {
    const model::LayerOptions lo{
        .activation_bytes = elem_, .kernels = model::Kernels::kEager, .residual_bytes = elem_};
    std::vector<std::pair<double, double>> out;
    for (const model::Op& op : model::EagerLayerOps(in_.model, lo)) {
      if (op.kind != model::OpKind::kMemory || op.bytes_per_token <= 0) continue;
      const double split = op.shard == model::Shard::kInner ? in_.tp : 1;
      out.emplace_back(op.bytes_per_token / split, op.flops_per_token / split);
    }
    return out;
  }
  Duration EagerMemoryBound(int64_t t) const {
    Duration d;
    const auto n = static_cast<double>(t);
    for (const auto& [bytes, flops] : eager_)
      d += in_.compute->MemoryBound(Bytes(bytes * n), Flops(flops * n));
    return d;
  }

  // An MoE model's MLP per layer: its MoE layers' and its first dense layers' (DeepSeek-style), averaged.
  Duration MixedMlp(int64_t t) const {
    const auto& m = in_.model;
    const double moe_share = static_cast<double>(m.MoeLayers()) / std::max(1, m.layers);
    Duration d = MoeMlp(t) * moe_share;
    if (moe_share < 1) d += DenseMlp(t, m.ffn_hidden / in_.tp) * (1.0 - moe_share);
    return d;
  }

  // The active experts of one GPU as the fused MoE kernel runs them: one batched GEMM per projection over the
  // experts, interpolated between the whole numbers around the expected count.
  Duration Experts(const MoeStep& s) const {
    const int64_t h = in_.model.hidden, m = s.tokens_per_expert, w = s.width;
    auto at = [&](int64_t experts) {
      if (experts <= 0) return Duration::Zero();
      return WeightGemm({.m = m, .n = (in_.model.gated_mlp ? 2 : 1) * w, .k = h, .batch = experts}) +
             WeightGemm({.m = m, .n = h, .k = w, .batch = experts}) +
             in_.compute->MemoryBound(Bytes(3.0 * m * w * experts * elem_), Flops(8.0 * m * w * experts));
    };
    const auto whole = static_cast<int64_t>(s.experts_per_gpu);
    const double frac = s.experts_per_gpu - static_cast<double>(whole);
    return at(whole) * (1.0 - frac) + at(whole + 1) * frac;
  }

  // One MoE layer's MLP (moe_step.h): the router, every active expert this GPU computes, the shared experts,
  // and moving each token's hidden state to its experts and back.
  Duration MoeMlp(int64_t t) const {
    const auto& m = in_.model;
    const MoeStep s = MoeStepShape(m.moe, t, in_.tp, in_.ep);
    Duration d = in_.compute->Gemm({.m = t, .n = m.moe.experts, .k = m.hidden}, in_.dtype);
    d += Experts(s);
    if (m.moe.shared_experts > 0)
      d += DenseMlp(t, std::max(1, m.moe.shared_experts * m.moe.expert_ffn_hidden / in_.tp));
    d += in_.compute->MemoryBound(Bytes(4.0 * t * m.moe.top_k * m.hidden * elem_), Flops(0));
    return d;
  }

  // One merged causal problem with as many query-key pairs as the batch's chunks (Vidur merges chunks the
  // same way).
  Duration MergedPrefill(double pairs) const {
    if (pairs <= 0) return Duration::Zero();
    const int64_t s = std::max<int64_t>(1, std::llround(std::sqrt(2.0 * pairs)));
    return in_.compute->AttentionForward({.batch = 1,
                                          .heads = heads_,
                                          .kv_heads = kv_heads_,
                                          .seq_q = s,
                                          .seq_kv = s,
                                          .head_dim = head_dim_,
                                          .backend = in_.attention_backend},
                                         in_.dtype);
  }

  Duration PrefillAttention(const BatchShape& b) const {
    if (b.prefill_requests == 0 || b.prefill_pairs <= 0) return Duration::Zero();
    // One averaged layer: the global layers' pairs and the windowed layers' (engine_profile.h WindowOf).
    Duration d = MergedPrefill(b.prefill_pairs);
    if (window_.compute_share > 0)
      d = d * (1 - window_.compute_share) + MergedPrefill(b.prefill_window_pairs) * window_.compute_share;
    // Writing the chunk's K and V into the paged cache.
    d += in_.compute->MemoryBound(
        Bytes(2.0 * b.prefill_tokens * kv_heads_ * head_dim_ * hw::DTypeBytes(in_.kv_dtype)), Flops(0));
    return b.prefill_requests > 1 ? d * (1.0 + kPrefillBatchingOverhead) : d;
  }

  // Paged attention streams every K and V of the batch once: per request and KV head a GEMV of the group's
  // queries against its context. Priced as one batched GEMM with K and V side by side along the reduction
  // (k = 2 x head_dim, n = mean context): the same FLOPs (4 x context x head_dim per query head) and bytes
  // (all K and V once, the queries, the scores), so it runs at the GEMM model's streaming efficiency
  // (measured small-M GEMMs on the same GPU), not at the elementwise-kernel efficiency. Speculative
  // decoding: each request's 1 + k queries read the same KV (one GEMM with k + 1 times the rows). The
  // blocks are the kernel's own layout, so no context length makes its loads misaligned.
  Duration DecodeOver(const BatchShape& b, int64_t context) const {
    const int64_t ctx = std::max<int64_t>(1, (context + b.decode_requests - 1) / b.decode_requests);
    return in_.compute->Gemm({.m = heads_ / kv_heads_ * (1 + b.spec_tokens),
                              .n = ctx,
                              .k = 2 * static_cast<int64_t>(head_dim_),
                              .batch = b.decode_requests * kv_heads_,
                              .layout = cost::GemmLayout::kKernelManaged},
                             in_.kv_dtype);
  }

  Duration DecodeAttention(const BatchShape& b) const {
    if (b.decode_requests == 0) return Duration::Zero();
    const Duration full = DecodeOver(b, b.decode_context);
    if (window_.compute_share <= 0) return full;
    return full * (1 - window_.compute_share) +
           DecodeOver(b, b.decode_window_context) * window_.compute_share;
  }

  Duration Embedding(int64_t t) const {
    if (has_profile_) return Millis(profile_.InterpolateMs(ProfiledOp::kEmbedding, static_cast<double>(t)));
    return in_.compute->MemoryBound(Bytes(2.0 * t * in_.model.hidden * elem_), Flops(0));
  }

  Duration LmHead(int64_t logits) const {
    if (logits <= 0) return Duration::Zero();
    const int64_t vocab = std::max<int64_t>(1, in_.model.vocab / in_.tp);
    return in_.compute->Gemm({.m = logits, .n = vocab, .k = in_.model.hidden}, in_.dtype);
  }

  Duration PipelineSends(int64_t t) const {
    if (in_.pp <= 1) return Duration::Zero();
    const Bytes msg(static_cast<double>(t) * in_.model.hidden * elem_);
    return in_.collective->Time(net::Collective::kSendRecv, msg, {.size = 2, .ranks_per_node = 2},
                                in_.fabric) *
           static_cast<int64_t>(in_.pp - 1);
  }

  ProfiledCostInputs in_;
  OperatorProfile profile_;
  bool has_profile_ = false;
  int heads_ = 1, kv_heads_ = 1, head_dim_ = 128;
  WindowedAttention window_;
  double elem_ = 2;
  std::vector<std::pair<double, double>>
      eager_;  // eager kernels: (bytes, flops) per token each; empty: fused
  std::vector<Duration> table_, embedding_, lm_head_;
};

class ConstantCostModel final : public IterationCostModel {
 public:
  ConstantCostModel(Duration per_prefill_token, Duration decode)
      : per_token_(per_prefill_token), decode_(decode) {}
  IterationTime Time(const BatchShape& b) const override {
    IterationTime out;
    out.fixed = per_token_ * b.prefill_tokens + (b.decode_requests > 0 ? decode_ : Duration::Zero());
    return out;
  }
  bool profiled() const override { return false; }

 private:
  Duration per_token_, decode_;
};

}  // namespace

std::unique_ptr<IterationCostModel> MakeProfiledCostModel(const ProfiledCostInputs& in) {
  return std::make_unique<ProfiledCostModel>(in);
}

std::unique_ptr<IterationCostModel> MakeConstantCostModel(Duration per_prefill_token,
                                                          Duration decode_iteration) {
  return std::make_unique<ConstantCostModel>(per_prefill_token, decode_iteration);
}

net::Fabric SingleNodeFabric(const hw::GpuSpec& gpu) {
  net::Fabric f;
  const bool nvlink = gpu.nvlink_bandwidth.value() > 0;
  f.intra_bw = nvlink ? gpu.nvlink_bandwidth : gpu.PcieBandwidth();
  f.inter_bw_per_gpu = f.intra_bw;
  f.intra_latency = nvlink ? net::kNvSwitchLatency : net::kPcieLatency;
  f.inter_latency = f.intra_latency;
  f.nvls = gpu.nvls;
  f.pcie_only = !nvlink;
  f.architecture = gpu.architecture;
  return f;
}

}  // namespace dlsim::serve
