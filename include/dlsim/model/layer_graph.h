// The operators of one transformer layer (and of the embedding / LM head), with full
// (unsharded) shapes and a sharding rule per operator. No parallelism is applied here:
// train/ applies tensor, sequence and context parallelism by the rule of each operator.
//
// Sizes are per token: a layer processing T tokens of a sequence of length s runs each GEMM
// with m = T, and core attention over (T / s) sequences of length s.
//
//   auto ops = dlsim::model::BuildLayerOps(spec, {.attention = AttentionImpl::kFlash});
//   for (const Op& op : ops) ...
#ifndef DLSIM_MODEL_LAYER_GRAPH_H_
#define DLSIM_MODEL_LAYER_GRAPH_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/model/model_spec.h"

namespace dlsim::model {

enum class OpKind {
  kGemm,       // dense matmul: [tokens, k] x [k, n]
  kAttention,  // core attention (QK^T, softmax, AV) over the sequence
  kMemory,     // memory-bound elementwise / reduction (norms, activations, adds, dropout, rotary)
};

// How tensor parallelism (tp) and sequence parallelism (sp) split an operator.
enum class Shard {
  kColumn,  // GEMM: n split by tp (QKV, MLP up/gate, LM head)
  kRow,     // GEMM: k split by tp (attention output projection, MLP down)
  kHeads,   // attention: heads split by tp
  kTokens,  // op on the full hidden: replicated across tp, or split by tp under sp (norms, the MoE router)
  kInner,   // memory-bound op inside a TP region (already split by tp): always divided by tp
  kReplicated,  // GEMM every TP rank runs whole on every token, sp or not (MLA's down projections)
};

// Memory access pattern of a memory-bound operator (sets its achievable bandwidth): streaming, a row
// reduction, indexed rows of a table (embedding lookup), or an MoE layer's token rows moved into expert order
// and back (permute).
enum class Access { kElementwise, kNormalization, kGather, kPermute };

// Which tokens an operator runs on. Every operator of a language model runs on the layer's tokens; a
// diffusion transformer (model/dit.h) adds its text stream and per-sample conditioning.
enum class TokenSet {
  kLayer,      // the layer's tokens (a DiT's latent tokens)
  kText,       // the micro-batch's text tokens, split over context parallelism like the layer's (MMDiT)
  kTextWhole,  // every text token of the micro-batch on every context-parallel rank (cross-attention K/V)
  kJoint,      // the layer's and the text tokens together (MMDiT joint attention, single-stream blocks)
  kSample,     // one row per sample of the micro-batch (adaLN modulation, timestep MLPs)
};

// What a core-attention operator attends: the layer's tokens to themselves (self), the layer's tokens
// to the whole text (cross), latent and text tokens together (joint), or the text to itself (a text
// refiner).
enum class AttentionKind { kSelf, kCross, kJoint, kText };

enum class AttentionImpl {
  kFlash,    // fused FlashAttention: no s^2 tensors stored; backward recomputes scores
  kUnfused,  // Megatron-2021 style: QK^T bmm, fused scale-mask-softmax, dropout, AV bmm
};

// The scenario names of AttentionImpl (`training.attention`): the one table io reads and writers print.
inline constexpr std::pair<std::string_view, AttentionImpl> kAttentionImplNames[] = {
    {"flash", AttentionImpl::kFlash}, {"unfused", AttentionImpl::kUnfused}};
inline std::string_view AttentionImplName(AttentionImpl impl) {
  for (const auto& [name, i] : kAttentionImplNames)
    if (i == impl) return name;
  return "?";
}

struct Op {
  std::string name;
  OpKind kind = OpKind::kMemory;
  Shard shard = Shard::kTokens;
  // kGemm: n and k of the weight (m is the token count).
  int64_t n = 0, k = 0;
  // kMemory: bytes moved (read + write) and flops per token, forward.
  double bytes_per_token = 0, flops_per_token = 0;
  // kMemory: bytes the backward moves per token; < 0: twice the forward's (the fused kernels' rule). The
  // eager operators (EagerLayerOps) give their own, read off autograd's kernels.
  double bwd_bytes_per_token = -1;
  // Activation bytes per token that this operator stores for the backward pass (Korthikanti
  // et al. 2022 accounting), before sharding.
  double saved_bytes_per_token = 0;
  // Stored bytes that grow with sequence length: saved = saved_per_token_per_seq * s per
  // token (unfused attention's s^2 tensors, 5as^2b in Korthikanti's notation).
  double saved_bytes_per_token_per_seq = 0;
  // Part of the attention core (recomputed under selective recomputation).
  bool attention_core = false;
  Access access = Access::kElementwise;  // kMemory ops
  // A routed-expert operator of a MoE layer: it runs on the routed token copies an expert-parallel
  // rank receives (not the layer's tokens), and kColumn / kRow / kInner split it by the expert-tensor-
  // parallel size instead of tp. Its per-token sizes are per routed copy.
  bool routed = false;
  TokenSet tokens = TokenSet::kLayer;
  AttentionKind attention_kind = AttentionKind::kSelf;  // kAttention ops
};

// How the framework runs a layer's memory-bound work: fused kernels (Megatron / Transformer Engine: one
// kernel per norm, activation, rotary embedding and residual add) or eager PyTorch (one kernel per tensor
// operation, plus autocast's casts and the copies layouts need; EagerLayerOps).
enum class Kernels { kFused, kEager };
inline constexpr std::pair<std::string_view, Kernels> kKernelsNames[] = {{"fused", Kernels::kFused},
                                                                         {"eager", Kernels::kEager}};
inline std::string_view KernelsName(Kernels k) { return k == Kernels::kEager ? "eager" : "fused"; }

// How an eager framework runs RMSNorm: PyTorch's kernel (torch.nn.RMSNorm, one fused kernel in PyTorch 2.11's
// traces) keeps its input for the backward; an RMSNorm written in Python that upcasts (Hugging Face's
// LlamaRMSNorm, litgpt, torchtune: x.float(), x * rsqrt(mean(x^2) + eps), then the weight) keeps an fp32 copy
// of its input and its normalised output.
enum class NormImpl { kFused, kPythonFp32 };
inline constexpr std::pair<std::string_view, NormImpl> kNormImplNames[] = {
    {"fused", NormImpl::kFused}, {"python-fp32", NormImpl::kPythonFp32}};
inline std::string_view NormImplName(NormImpl n) {
  return n == NormImpl::kPythonFp32 ? "python-fp32" : "fused";
}

struct LayerOptions {
  AttentionImpl attention = AttentionImpl::kFlash;
  double activation_bytes = 2;  // bf16/fp16 activations
  Kernels kernels = Kernels::kFused;
  // Eager kernels: bytes per element of the residual stream, the norms and the rotary arithmetic (4 under
  // autocast over fp32 weights, whose residual stream stays fp32; activation_bytes otherwise).
  double residual_bytes = 2;
  // Eager kernels: how RMSNorm runs (NormImpl); LayerNorm is PyTorch's kernel either way.
  NormImpl norm_impl = NormImpl::kFused;
  // How the head (final norm, LM head, loss) runs; unset: as `kernels`. Eager where only the transformer
  // blocks are compiled (torchtitan): the loss upcasts the logits to fp32 (EagerHeadOps).
  std::optional<Kernels> head_kernels;
  // MoE layers: the token dispatcher permutes the tokens into expert order inside its communication kernels
  // (HybridEP), so the block has no permute pass and its unpermute moves no bytes (it keeps what it saves).
  bool moe_fused_permute = false;
};

// Operators of one transformer layer with a dense MLP, in execution order (MLA attention when m.mla
// is enabled). With o.kernels eager, a dense model without MLA gets EagerLayerOps.
std::vector<Op> BuildLayerOps(const ModelSpec& m, const LayerOptions& o);
// The layer's operators as eager PyTorch runs a plain decoder block (RMSNorm or LayerNorm, fused QKV, rotary
// embedding as x1*cos - x2*sin and x2*cos + x1*sin then a concatenation, SDPA, SwiGLU or GELU, residual adds;
// the shared H200 traces, docs/training-model.md "Eager kernels"): the same GEMMs and attention, and every
// memory-bound kernel with its forward / backward bytes per token in closed form (a activation bytes, r
// residual bytes, c = r + a when r != a else 0 (a cast), h hidden, q query and k key widths, f ffn width):
//   norm (x2):             2rh / 3rh, then its output cast ch / ch; it keeps rh (its input), (4 + r)h when
//                          an RMSNorm is written in Python (NormImpl::kPythonFp32)
//   rotary (e = q + k):    2(a+r)e + 5re + ce / 3ce + 5re + 5ae
//   attention transposes:  2aq / 2a(2q+k) (rotary models only)
//   QKV gradient concat:   0 / 2a(q+2k)
//   residual add (x2):     (2r+a)h / 3rh + ch
//   SwiGLU or GELU:        5af / 13af, or 2af / 3af
//   bias gradients:        0 / r x (the widths of the layers with a bias)
std::vector<Op> EagerLayerOps(const ModelSpec& m, const LayerOptions& o);
// The PyTorch operators (aten ops, nested ones included, as torch.profiler records them) one eager decoder
// layer's forward dispatches: what its host time scales with. Read off the shared autocast H200 traces
// (Llama 3.2 1B: 156 per layer, GPT-2 XL: 123; docs/training-model.md "Eager host time"), a = autocast:
//   SDPA 9; q/k/v split, views and transposes and the output's transpose + reshape 21 (+2 multi-head: split
//   into equal parts and a reshape that is a view); per linear 10 + 4a (autocast's weight cast), + 4a for the
//   two whose input is a norm's fp32 output, + 2a per bias; residual adds 2; per norm RMSNorm 6, LayerNorm 8;
//   SwiGLU 10 (chunk, silu, mul) or GELU 1; rotary 2 x (15 + 4a) (chunk, four multiplies, subtraction and
//   addition, concatenation, and the cast back; a no-op `to` without autocast).
// The pure-bf16 counts (a = 0) are inferred from the same calls without their casts, not traced.
double EagerLayerCpuOps(const ModelSpec& m, const LayerOptions& o);
// EagerLayerCpuOps of `m` over that of the layer eager host times are measured on (data/profiles/h200-host:
// Llama-style, multi-head, rotary, SwiGLU, RMSNorm, no biases) under the same options.
double EagerHostScale(const ModelSpec& m, const LayerOptions& o);
// Operators of one MoE layer: the same attention, then the router, the shared experts (a dense MLP
// of shared_experts * expert_ffn_hidden) and the routed experts (permute, up, activation, down,
// unpermute; `routed` set). The token all-to-all is communication, priced by train.
std::vector<Op> BuildMoeLayerOps(const ModelSpec& m, const LayerOptions& o);
// The MoE block of that layer alone (what Megatron-Core's MoELayer runs): router, shared experts and routed
// experts, without the attention block, the norms or the residual add. BuildMoeLayerOps is the attention
// block, these, then the MLP residual.
std::vector<Op> BuildMoeBlockOps(const ModelSpec& m, const LayerOptions& o);
// Operators of the input embedding (first pipeline stage) and of the final norm, LM head
// and loss (last pipeline stage).
std::vector<Op> BuildEmbeddingOps(const ModelSpec& m, const LayerOptions& o);
std::vector<Op> BuildHeadOps(const ModelSpec& m, const LayerOptions& o);
// With head kernels (o.head_kernels, else o.kernels) eager, EagerHeadOps.
// The eager head: the final norm in r bytes and its cast, the LM head, the logits cast to fp32 ((a+4)V,
// backward the same) and the loss (log-softmax 8V, backward 12V) where the fused head has one cross-entropy
// kernel.
std::vector<Op> EagerHeadOps(const ModelSpec& m, const LayerOptions& o);

// Forward FLOPs of a model for `tokens` tokens of sequence length `seq` (matmuls and
// attention only, the convention of MFU): 2 * params_matmul * tokens + attention; causal
// attention counts half the score work when `causal_halving` is set. MoE layers count the router and
// the top_k + shared experts a token passes through. A DiT (arch dit): tokens / seq samples of
// DitForwardFlops(m, seq, m.dit.text_tokens) (model/dit.h).
double ModelForwardFlops(const ModelSpec& m, double tokens, double seq, bool causal_halving);

}  // namespace dlsim::model

#endif  // DLSIM_MODEL_LAYER_GRAPH_H_
