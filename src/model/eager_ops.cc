// The memory-bound kernels of a decoder block and the head as eager PyTorch runs them (layer_graph.h,
// EagerLayerOps, EagerHeadOps). Each
// closed form was read off the kernels and recorded shapes of the three shared H200 traces
// (scripts/trace-layer-bytes.py) and checked against them: docs/training-model.md, "Eager kernels".
#include <utility>

#include "dlsim/model/layer_graph.h"
#include "op_builders.h"

namespace dlsim::model {
namespace {

using internal::Memory;

// Sizes of one layer, per token: a activation, r residual bytes, c a cast's (r + a under autocast, else 0);
// h hidden, q query, k key (and value), f ffn.
struct Widths {
  double a, r, c, h, q, k, f;
};

// A memory-bound operator moving `fwd` and `bwd` bytes per token, with `like`'s FLOPs and saved bytes.
Op Eager(std::string name, Shard shard, double fwd, double bwd, const Op& like, Access access) {
  Op op = Memory(std::move(name), shard, fwd, like.flops_per_token, like.saved_bytes_per_token, access);
  op.bwd_bytes_per_token = bwd;
  return op;
}

// A norm in r bytes, then (under autocast) its output cast to the GEMM's type. It keeps its input (r h; the
// GEMM keeps the cast copy), or, written in Python with an fp32 upcast, the fp32 input and the normalised
// output.
void AddNorm(const Op& fused, const Widths& w, bool python_fp32, std::vector<Op>& out) {
  out.push_back(Eager(fused.name, fused.shard, 2 * w.r * w.h, 3 * w.r * w.h, fused, Access::kNormalization));
  out.back().saved_bytes_per_token = (python_fp32 ? 4 + w.r : w.r) * w.h;
  if (w.c > 0)
    out.push_back(
        Eager(fused.name + "_cast", Shard::kTokens, w.c * w.h, w.c * w.h, Op{}, Access::kElementwise));
}

// Rotary embedding of q and k in r bytes (halves multiplied by cos and sin, subtracted and added,
// concatenated, cast back), then the attention inputs' and outputs' transposes.
void AddRotary(const Op& fused, const Widths& w, std::vector<Op>& out) {
  const double e = w.q + w.k;
  const double fwd = 2 * (w.a + w.r) * e + 5 * w.r * e + w.c * e;
  const double bwd = 3 * w.c * e + 5 * w.r * e + 5 * w.a * e;
  out.push_back(Eager(fused.name, fused.shard, fwd, bwd, fused, Access::kElementwise));
  out.push_back(Eager("attention_transpose", Shard::kInner, 2 * w.a * w.q, 2 * w.a * (2 * w.q + w.k), Op{},
                      Access::kElementwise));
}

void AddResidual(const Op& fused, const Widths& w, std::vector<Op>& out) {
  out.push_back(Eager(fused.name, fused.shard, (2 * w.r + w.a) * w.h, 3 * w.r * w.h + w.c * w.h, fused,
                      Access::kElementwise));
}

// What eager attention keeps beyond the fused graph's Q, K, V and log-sum-exp, per token: SDPA keeps its
// output for its backward while the output projection keeps the contiguous copy that transpose + reshape
// makes (a q); with rotary, the rotated q and k are new tensors while v, a view of the fused QKV projection's
// output, keeps all of that output alive (a (q + k)). Read off the traced decoder
// (scripts/measure-h200-heldout.py Block); separate q/k/v projections (Hugging Face, torchtune) would keep
// only the a q.
double EagerAttentionSavedExtra(const Widths& w, bool rope) {
  return w.a * w.q + (rope ? w.a * (w.q + w.k) : 0);
}

// Whether the model's norms are RMSNorms written in Python with an fp32 upcast (LayerNorm is PyTorch's kernel
// either way).
bool PythonFp32Norm(const ModelSpec& m, const LayerOptions& o) {
  return m.norm == Norm::kRmsNorm && o.norm_impl == NormImpl::kPythonFp32;
}

// Gradients of the layer's biases: each a sum over the tokens of its output gradient, in r bytes.
double BiasGradientBytes(const ModelSpec& m, const Widths& w) {
  const double qkv = w.q + 2 * w.k;
  if (m.linear_bias) return w.r * (qkv + w.h + (m.gated_mlp ? 2 * w.f : w.f) + w.h);
  return m.attention_bias ? w.r * qkv : 0;
}

}  // namespace

std::vector<Op> EagerLayerOps(const ModelSpec& m, const LayerOptions& o) {
  LayerOptions fused = o;
  fused.kernels = Kernels::kFused;
  const double a = o.activation_bytes, r = o.residual_bytes;
  const Widths w{a,
                 r,
                 r != a ? r + a : 0,
                 static_cast<double>(m.hidden),
                 m.QueryWidth(),
                 double(m.kv_heads) * m.head_dim(),
                 static_cast<double>(m.ffn_hidden)};
  const bool rope = m.position_embedding == PositionEmbedding::kRope;
  std::vector<Op> out;
  for (const Op& op : BuildLayerOps(m, fused)) {
    if (op.name == "input_norm" || op.name == "post_attn_norm") {
      AddNorm(op, w, PythonFp32Norm(m, o), out);
    } else if (op.name == "rotary") {
      if (rope) AddRotary(op, w, out);
    } else if (op.name == "attn_residual" || op.name == "mlp_residual") {
      AddResidual(op, w, out);
    } else if (op.name == "swiglu" || op.name == "gelu") {
      const double af = w.a * w.f;
      out.push_back(Eager(op.name, op.shard, m.gated_mlp ? 5 * af : 2 * af, m.gated_mlp ? 13 * af : 3 * af,
                          op, Access::kElementwise));
      // SiLU's output is a tensor of its own that the multiply keeps (a fused SwiGLU keeps only its input).
      if (m.gated_mlp) out.back().saved_bytes_per_token += af;
    } else if (op.kind == OpKind::kAttention) {
      out.push_back(op);
      out.back().saved_bytes_per_token += EagerAttentionSavedExtra(w, rope);
    } else {
      out.push_back(op);
    }
    // The QKV gradients are concatenated into the fused projection's (after the core attention's backward).
    if (op.kind == OpKind::kAttention)
      out.push_back(
          Eager("qkv_grad_cat", Shard::kInner, 0, 2 * w.a * (w.q + 2 * w.k), Op{}, Access::kElementwise));
  }
  if (const double bias = BiasGradientBytes(m, w); bias > 0)
    out.push_back(Eager("bias_grads", Shard::kInner, 0, bias, Op{}, Access::kNormalization));
  return out;
}

std::vector<Op> EagerHeadOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes, r = o.residual_bytes, h = m.hidden, v = m.vocab;
  const Op norm = Memory("", Shard::kTokens, 0, 8.0 * h, (PythonFp32Norm(m, o) ? 4 + r : r) * h),
           logits = Memory("", Shard::kInner, 0, 0, 4 * v);
  std::vector<Op> ops;
  ops.push_back(Eager("final_norm", Shard::kTokens, 2 * r * h, 3 * r * h, norm, Access::kNormalization));
  if (r != a)
    ops.push_back(
        Eager("final_norm_cast", Shard::kTokens, (r + a) * h, (r + a) * h, Op{}, Access::kElementwise));
  ops.push_back(internal::Gemm("lm_head", Shard::kColumn, m.vocab, m.hidden, a * h));
  ops.push_back(Eager("logits_cast", Shard::kInner, (a + 4) * v, (a + 4) * v, logits, Access::kElementwise));
  const Op loss = Memory("", Shard::kInner, 0, 5.0 * v, 4 * v);
  ops.push_back(Eager("cross_entropy", Shard::kInner, 8 * v, 12 * v, loss, Access::kNormalization));
  return ops;
}

double EagerLayerCpuOps(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.residual_bytes != o.activation_bytes ? 1 : 0;  // autocast: the weights' casts
  const bool mha = m.kv_heads == m.heads;
  const double biases = m.linear_bias ? 4 : m.attention_bias ? 1 : 0;
  double ops = 9 + 21 + (mha ? 2 : 0);                   // SDPA, views, transposes, the output reshape
  ops += 4 * (10 + 4 * a) + 2 * 4 * a + biases * 2 * a;  // four linears, two on fp32 norm outputs
  ops += 2 + 2 * (m.norm == Norm::kRmsNorm ? 6 : 8);     // residual adds, norms
  ops += m.gated_mlp ? 10 : 1;
  if (m.position_embedding == PositionEmbedding::kRope) ops += 2 * (15 + 4 * a);
  return ops;
}

double EagerHostScale(const ModelSpec& m, const LayerOptions& o) {
  ModelSpec measured;
  measured.heads = measured.kv_heads = 4;
  measured.gated_mlp = true;
  measured.norm = Norm::kRmsNorm;
  measured.position_embedding = PositionEmbedding::kRope;
  return EagerLayerCpuOps(m, o) / EagerLayerCpuOps(measured, o);
}

}  // namespace dlsim::model
