#include "dlsim/model/layer_graph.h"

#include <algorithm>

#include "dlsim/model/dit.h"
#include "op_builders.h"

namespace dlsim::model {
namespace {

using internal::Gemm;
using internal::Memory;

// MLA's query and key/value projections (model_spec.h): the down projections run whole on every TP
// rank; the up projections split their heads over tp.
void AddMlaProjections(const ModelSpec& m, double a, std::vector<Op>& ops) {
  const MlaSpec& l = m.mla;
  const double h = m.hidden, q = m.QueryWidth();
  const int64_t kv_up = static_cast<int64_t>(m.heads) * (l.qk_nope_head_dim + l.v_head_dim);
  if (l.q_lora_rank > 0) {
    ops.push_back(Gemm("q_down_proj", Shard::kReplicated, l.q_lora_rank, m.hidden, a * h));
    ops.push_back(Memory("q_norm", Shard::kInner, 2 * a * l.q_lora_rank, 8.0 * l.q_lora_rank,
                         a * l.q_lora_rank, Access::kNormalization));
    ops.push_back(
        Gemm("q_up_proj", Shard::kColumn, static_cast<int64_t>(q), l.q_lora_rank, a * l.q_lora_rank));
  } else {
    ops.push_back(Gemm("q_proj", Shard::kColumn, static_cast<int64_t>(q), m.hidden, a * h));
  }
  ops.push_back(Gemm("kv_down_proj", Shard::kReplicated, l.kv_lora_rank + l.qk_rope_head_dim, m.hidden, 0));
  ops.push_back(Memory("kv_norm", Shard::kInner, 2 * a * l.kv_lora_rank, 8.0 * l.kv_lora_rank,
                       a * l.kv_lora_rank, Access::kNormalization));
  ops.push_back(Gemm("kv_up_proj", Shard::kColumn, kv_up, l.kv_lora_rank, a * l.kv_lora_rank));
}

// The attention block: input norm, projections, rotary, core attention, output projection, residual.
void AddAttentionOps(const ModelSpec& m, const LayerOptions& o, std::vector<Op>& ops) {
  const double a = o.activation_bytes;
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();  // width of K (and of V)
  const double q = m.QueryWidth();
  const bool drop = m.dropout > 0;
  const double mask = drop ? 1.0 : 0.0;  // one byte per element
  // Korthikanti et al. 2022 section 4.1: 11sbh + 5as^2b (MHA, unfused).
  ops.push_back(Memory("input_norm", Shard::kTokens, 2 * a * h, 8 * h, a * h, Access::kNormalization));
  if (m.mla.enabled()) {
    AddMlaProjections(m, a, ops);
  } else {
    ops.push_back(Gemm("qkv_proj", Shard::kColumn, static_cast<int64_t>(q + 2 * kv), m.hidden, a * h));
  }
  ops.push_back(Memory("rotary", Shard::kInner, 2 * a * (q + kv), 6 * (q + kv), 0));
  Op attn;
  attn.name = "core_attention";
  attn.kind = OpKind::kAttention;
  attn.shard = Shard::kHeads;
  attn.attention_core = true;
  // Q, K, V are inputs of the core; FlashAttention also keeps its output and the softmax
  // log-sum-exp (4 bytes per head per token).
  attn.saved_bytes_per_token = a * (q + 2 * kv);
  if (o.attention == AttentionImpl::kUnfused) {
    // softmax output (a bytes), dropout mask (1 byte), dropout output (a bytes) per score:
    // per token per key position, per head.
    attn.saved_bytes_per_token_per_seq = m.heads * (2 * a + mask);
  } else {
    attn.saved_bytes_per_token += 4.0 * m.heads;
  }
  ops.push_back(attn);
  const double out = m.AttentionOutputWidth();
  ops.push_back(Gemm("out_proj", Shard::kRow, m.hidden, static_cast<int64_t>(out), a * out));
  ops.push_back(Memory("attn_residual", Shard::kTokens, (3 + (drop ? 1.5 : 0)) * a * h, h, mask * h));
  ops.push_back(Memory("post_attn_norm", Shard::kTokens, 2 * a * h, 8 * h, a * h, Access::kNormalization));
}

// A dense MLP of width `f` (prefix names its operators): up (and gate), activation, down.
void AddMlpOps(const ModelSpec& m, double a, double f, const std::string& prefix, bool routed,
               std::vector<Op>& ops) {
  const double up_width = m.gated_mlp ? 2 * f : f;
  const std::string act = m.gated_mlp ? "swiglu" : "gelu";
  ops.push_back(Gemm(prefix + "up", Shard::kColumn, static_cast<int64_t>(up_width), m.hidden, a * m.hidden));
  ops.push_back(
      Memory(prefix == "mlp_" ? act : prefix + act, Shard::kInner, a * (up_width + f), 8 * f, a * up_width));
  ops.push_back(Gemm(prefix + "down", Shard::kRow, m.hidden, static_cast<int64_t>(f), a * f));
  if (routed)
    for (size_t i = ops.size() - 3; i < ops.size(); ++i) ops[i].routed = true;
}

void AddResidual(const ModelSpec& m, double a, std::vector<Op>& ops) {
  const bool drop = m.dropout > 0;
  const double h = m.hidden;
  ops.push_back(
      Memory("mlp_residual", Shard::kTokens, (3 + (drop ? 1.5 : 0)) * a * h, h, (drop ? 1.0 : 0.0) * h));
}

}  // namespace

std::vector<Op> BuildLayerOps(const ModelSpec& m, const LayerOptions& o) {
  if (o.kernels == Kernels::kEager && !m.mla.enabled()) return EagerLayerOps(m, o);
  const double a = o.activation_bytes;
  std::vector<Op> ops;
  AddAttentionOps(m, o, ops);
  // MLP block: 19sbh for a GeLU MLP with 4h.
  AddMlpOps(m, a, m.ffn_hidden, "mlp_", false, ops);
  AddResidual(m, a, ops);
  return ops;
}

std::vector<Op> BuildMoeBlockOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  const double h = m.hidden;
  const MoeSpec& e = m.moe;
  std::vector<Op> ops;
  // Router: logits over the experts, fp32 softmax / top-k (kept for the backward).
  ops.push_back(Gemm("router", Shard::kTokens, e.experts, m.hidden, a * h));
  ops.push_back(Memory("router_topk", Shard::kTokens, 8.0 * e.experts, 5.0 * e.experts, 4.0 * e.experts));
  if (e.shared_experts > 0)
    AddMlpOps(m, a, static_cast<double>(e.shared_experts) * e.expert_ffn_hidden, "shared_", false, ops);
  // Routed experts, per routed copy: permute (gather into expert order), the expert MLP, unpermute
  // (scatter back, weighted by the router probability).
  // A dispatcher that permutes inside its communication (o.moe_fused_permute) leaves neither pass, and the
  // unpermute only its saved expert outputs.
  const bool fused = o.moe_fused_permute;
  if (!fused) {
    ops.push_back(Memory("permute", Shard::kInner, 2 * a * h, 0, 0, Access::kPermute));
    ops.back().routed = true;
  }
  AddMlpOps(m, a, e.expert_ffn_hidden, "expert_", true, ops);
  ops.push_back(
      Memory("unpermute", Shard::kInner, fused ? 0 : 2 * a * h, fused ? 0 : h, a * h, Access::kPermute));
  ops.back().routed = true;
  return ops;
}

std::vector<Op> BuildMoeLayerOps(const ModelSpec& m, const LayerOptions& o) {
  std::vector<Op> ops;
  AddAttentionOps(m, o, ops);
  const std::vector<Op> block = BuildMoeBlockOps(m, o);
  ops.insert(ops.end(), block.begin(), block.end());
  AddResidual(m, o.activation_bytes, ops);
  return ops;
}

std::vector<Op> BuildEmbeddingOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  // Gather rows of the (vocab-parallel) table and write the hidden states.
  return {Memory("embedding", Shard::kTokens, 2 * a * m.hidden, 0, m.dropout > 0 ? m.hidden : 0,
                 Access::kGather)};
}

std::vector<Op> BuildHeadOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  if (o.head_kernels.value_or(o.kernels) == Kernels::kEager) return EagerHeadOps(m, o);
  std::vector<Op> ops;
  ops.push_back(Memory("final_norm", Shard::kTokens, 2 * a * m.hidden, 8.0 * m.hidden, a * m.hidden,
                       Access::kNormalization));
  ops.push_back(Gemm("lm_head", Shard::kColumn, m.vocab, m.hidden, a * m.hidden));
  // Vocab-parallel cross entropy in fp32: read logits, write fp32 softmax kept for backward.
  ops.push_back(Memory("cross_entropy", Shard::kInner, (a + 4.0) * m.vocab, 5.0 * m.vocab, 4.0 * m.vocab,
                       Access::kNormalization));
  return ops;
}

namespace {

// Matmul parameters of the attention projections (no norms, no biases).
double AttentionMatmulParameters(const ModelSpec& m) {
  const double h = m.hidden, q = m.QueryWidth(), out = m.AttentionOutputWidth();
  if (!m.mla.enabled()) {
    const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
    return h * (q + 2 * kv) + out * h;
  }
  const MlaSpec& l = m.mla;
  const double ql = l.q_lora_rank, kvl = l.kv_lora_rank;
  const double q_params = ql > 0 ? h * ql + ql * q : h * q;
  return q_params + h * (kvl + l.qk_rope_head_dim) + kvl * m.heads * (l.qk_nope_head_dim + l.v_head_dim) +
         out * h;
}

}  // namespace

double ModelForwardFlops(const ModelSpec& m, double tokens, double seq, bool causal_halving) {
  // A DiT: tokens / seq samples of seq latent tokens and the model's text tokens each (model/dit.h).
  if (m.arch == Arch::kDit) return seq > 0 ? tokens / seq * DitForwardFlops(m, seq, m.dit.text_tokens) : 0;
  const double h = m.hidden;
  const double f = m.ffn_hidden;
  const double per_matrix = m.gated_mlp ? 3.0 : 2.0;
  const double mlp = per_matrix * h * f;
  const double attn_proj = AttentionMatmulParameters(m);
  const int moe_layers = m.MoeLayers();
  double per_token = 2.0 * (m.layers - moe_layers) * (mlp + attn_proj);
  if (moe_layers > 0) {
    const MoeSpec& e = m.moe;
    // A capacity factor below 1 drops the routed copies past each expert's capacity (balanced routing keeps
    // that fraction): they are not the model's work, and counting them gave an MFU above 100% (issue 35).
    const double kept = e.capacity_factor > 0 ? std::min(1.0, e.capacity_factor) : 1.0;
    const double experts = (e.top_k * kept + e.shared_experts) * per_matrix * h * e.expert_ffn_hidden;
    per_token += 2.0 * moe_layers * (attn_proj + e.experts * h + experts);
  }
  // Scores and AV: 2 matmuls of 2 * s * (heads * head_dim) flops per token each.
  double attn = 4.0 * m.layers * seq * (static_cast<double>(m.heads) * m.head_dim());
  if (causal_halving) attn *= 0.5;
  per_token += attn;
  per_token += 2.0 * h * m.vocab;  // LM head
  return per_token * tokens;
}

}  // namespace dlsim::model
