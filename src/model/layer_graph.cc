#include "dlsim/model/layer_graph.h"

namespace dlsim::model {
namespace {

Op Gemm(std::string name, Shard shard, int64_t n, int64_t k, double saved) {
  Op op;
  op.name = std::move(name);
  op.kind = OpKind::kGemm;
  op.shard = shard;
  op.n = n;
  op.k = k;
  op.saved_bytes_per_token = saved;
  return op;
}

Op Memory(std::string name, Shard shard, double bytes, double flops, double saved,
          Access access = Access::kElementwise) {
  Op op;
  op.access = access;
  op.name = std::move(name);
  op.kind = OpKind::kMemory;
  op.shard = shard;
  op.bytes_per_token = bytes;
  op.flops_per_token = flops;
  op.saved_bytes_per_token = saved;
  return op;
}

}  // namespace

std::vector<Op> BuildLayerOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  const double h = m.hidden;
  const double d = m.head_dim();
  const double kv = static_cast<double>(m.kv_heads) * d;  // width of K (and of V)
  const double f = m.ffn_hidden;
  const bool drop = m.dropout > 0;
  const double mask = drop ? 1.0 : 0.0;  // one byte per element
  std::vector<Op> ops;
  // Attention block. Korthikanti et al. 2022 section 4.1: 11sbh + 5as^2b (MHA, unfused).
  ops.push_back(Memory("input_norm", Shard::kTokens, 2 * a * h, 8 * h, a * h, Access::kNormalization));
  ops.push_back(Gemm("qkv_proj", Shard::kColumn, static_cast<int64_t>(h + 2 * kv), m.hidden, a * h));
  ops.push_back(Memory("rotary", Shard::kInner, 2 * a * (h + kv), 6 * (h + kv), 0));
  Op attn;
  attn.name = "core_attention";
  attn.kind = OpKind::kAttention;
  attn.shard = Shard::kHeads;
  attn.attention_core = true;
  // Q, K, V are inputs of the core; FlashAttention also keeps its output and the softmax
  // log-sum-exp (4 bytes per head per token).
  attn.saved_bytes_per_token = a * (h + 2 * kv);
  if (o.attention == AttentionImpl::kUnfused) {
    // softmax output (a bytes), dropout mask (1 byte), dropout output (a bytes) per score:
    // per token per key position, per head.
    attn.saved_bytes_per_token_per_seq = m.heads * (2 * a + mask);
  } else {
    attn.saved_bytes_per_token += 4.0 * m.heads;
  }
  ops.push_back(attn);
  ops.push_back(Gemm("out_proj", Shard::kRow, m.hidden, m.hidden, a * h));
  ops.push_back(Memory("attn_residual", Shard::kTokens, (3 + (drop ? 1.5 : 0)) * a * h, h, mask * h));
  // MLP block: 19sbh for a GeLU MLP with 4h.
  const double up_width = m.gated_mlp ? 2 * f : f;
  ops.push_back(Memory("post_attn_norm", Shard::kTokens, 2 * a * h, 8 * h, a * h, Access::kNormalization));
  ops.push_back(Gemm("mlp_up", Shard::kColumn, static_cast<int64_t>(up_width), m.hidden, a * h));
  ops.push_back(
      Memory(m.gated_mlp ? "swiglu" : "gelu", Shard::kInner, a * (up_width + f), 8 * f, a * up_width));
  ops.push_back(Gemm("mlp_down", Shard::kRow, m.hidden, static_cast<int64_t>(f), a * f));
  ops.push_back(Memory("mlp_residual", Shard::kTokens, (3 + (drop ? 1.5 : 0)) * a * h, h, mask * h));
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
  std::vector<Op> ops;
  ops.push_back(Memory("final_norm", Shard::kTokens, 2 * a * m.hidden, 8.0 * m.hidden, a * m.hidden,
                       Access::kNormalization));
  ops.push_back(Gemm("lm_head", Shard::kColumn, m.vocab, m.hidden, a * m.hidden));
  // Vocab-parallel cross entropy in fp32: read logits, write fp32 softmax kept for backward.
  ops.push_back(Memory("cross_entropy", Shard::kInner, (a + 4.0) * m.vocab, 5.0 * m.vocab, 4.0 * m.vocab,
                       Access::kNormalization));
  return ops;
}

double ModelForwardFlops(const ModelSpec& m, double tokens, double seq, bool causal_halving) {
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  const double f = m.ffn_hidden;
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * h * f;
  const double attn_proj = h * (h + 2 * kv) + h * h;
  double per_token = 2.0 * m.layers * (mlp + attn_proj);
  // Scores and AV: 2 matmuls of 2 * s * h flops per token each.
  double attn = 4.0 * m.layers * seq * h;
  if (causal_halving) attn *= 0.5;
  per_token += attn;
  per_token += 2.0 * h * m.vocab;  // LM head
  return per_token * tokens;
}

}  // namespace dlsim::model
