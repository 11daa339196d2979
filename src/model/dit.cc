#include "dlsim/model/dit.h"

#include <algorithm>
#include <string>

#include "op_builders.h"

namespace dlsim::model {

std::string_view QkNormName(QkNorm n) {
  return n == QkNorm::kNone ? "none" : n == QkNorm::kPerHead ? "head" : "full";
}
std::string_view ModulationName(Modulation m) { return m == Modulation::kPerBlock ? "block" : "shared"; }

std::string_view DitBlockKindName(DitBlockKind k) {
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return "cross_attention";
    case DitBlockKind::kDoubleStream:
      return "double_stream";
    case DitBlockKind::kSingleStream:
      return "single_stream";
  }
  return "?";
}

DitBlockKind DitBlockOf(const ModelSpec& m, int i) {
  if (m.dit.cross_attention) return DitBlockKind::kCrossAttention;
  return i < m.dit.double_blocks ? DitBlockKind::kDoubleStream : DitBlockKind::kSingleStream;
}

int DitBlocksOf(const ModelSpec& m, DitBlockKind k) {
  const bool cross = m.dit.cross_attention;
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return cross ? m.layers : 0;
    case DitBlockKind::kDoubleStream:
      return cross ? 0 : m.dit.double_blocks;
    case DitBlockKind::kSingleStream:
      return cross ? 0 : m.layers - m.dit.double_blocks;
  }
  return 0;
}

namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return b > 0 ? (a + b - 1) / b : 0; }

}  // namespace

LatentGrid LatentGridOf(const DitSpec& d, const VideoClip& clip) {
  LatentGrid g;
  const int64_t frames = std::max(1, clip.frames);
  g.frames = d.vae_causal ? 1 + CeilDiv(frames - 1, d.vae_temporal) : CeilDiv(frames, d.vae_temporal);
  g.height = CeilDiv(clip.height, d.vae_spatial);
  g.width = CeilDiv(clip.width, d.vae_spatial);
  g.tokens = CeilDiv(g.frames, d.patch_frames) * CeilDiv(g.height, d.patch) * CeilDiv(g.width, d.patch);
  return g;
}

int64_t LatentTokens(const DitSpec& d, const VideoClip& clip) { return LatentGridOf(d, clip).tokens; }

namespace {

// Widths of a DiT's projections: query (all heads), key and value (each), attention output, MLP up
// (gate + up when gated), modulation rows per stream.
struct Widths {
  double h, q, kv, out, f, up, per_matrix;
};
Widths WidthsOf(const ModelSpec& m) {
  const double f = m.ffn_hidden;
  return {static_cast<double>(m.hidden),
          m.QueryWidth(),
          static_cast<double>(m.kv_heads) * m.head_dim(),
          m.AttentionOutputWidth(),
          f,
          m.gated_mlp ? 2 * f : f,
          m.gated_mlp ? 3.0 : 2.0};
}

double Linear(double in, double out, bool bias) { return in * out + (bias ? out : 0); }

// Linear(in, h) - act - Linear(h, h), both with bias (timestep, pooled and guidance embedders).
double EmbedderParameters(double in, double h) { return Linear(in, h, true) + Linear(h, h, true); }

// q/k RMSNorm weights of one attention.
double QkNormParameters(const ModelSpec& m, const Widths& w) {
  switch (m.dit.qk_norm) {
    case QkNorm::kNone:
      return 0;
    case QkNorm::kPerHead:
      return 2.0 * m.head_dim();
    case QkNorm::kFull:
      return w.q + w.kv;
  }
  return 0;
}

// Per-block adaLN: Linear(h, rows x h) with bias, or a learned rows x h table under shared modulation.
double ModulationParameters(const ModelSpec& m, double rows) {
  const double h = m.hidden;
  return m.dit.modulation == Modulation::kPerBlock ? Linear(h, rows * h, true) : rows * h;
}

double MlpParameters(const Widths& w, bool bias) { return Linear(w.h, w.up, bias) + Linear(w.f, w.h, bias); }

}  // namespace

double DitBlockParameters(const ModelSpec& m, DitBlockKind k) {
  const Widths w = WidthsOf(m);
  const bool b = m.linear_bias;
  const double attention = m.AttentionParameters() + QkNormParameters(m, w);
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return 2 * attention + (m.dit.cross_attention_norm ? 2 * w.h : 0) + MlpParameters(w, b) +
             ModulationParameters(m, 6);
    case DitBlockKind::kDoubleStream:
      return 2 * (attention + MlpParameters(w, b) + ModulationParameters(m, 6));
    case DitBlockKind::kSingleStream:
      return Linear(w.h, w.q + 2 * w.kv + w.up, b) + Linear(w.out + w.f, w.h, b) + QkNormParameters(m, w) +
             ModulationParameters(m, 3);
  }
  return 0;
}

double DitModulationParameters(const ModelSpec& m, DitBlockKind k) {
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return ModulationParameters(m, 6);
    case DitBlockKind::kDoubleStream:
      return 2 * ModulationParameters(m, 6);
    case DitBlockKind::kSingleStream:
      return ModulationParameters(m, 3);
  }
  return 0;
}

double DitRefinerParameters(const ModelSpec& m) {
  const DitSpec& d = m.dit;
  if (d.refiner_blocks <= 0) return 0;
  const double in = d.refiner_in, H = d.refiner_hidden;
  // Two affine LayerNorms, QKV and output projections, a 4x MLP and a 2-way gate, all with biases.
  const double block = 4 * H + Linear(H, 3 * H, true) + Linear(H, H, true) + Linear(H, 4 * H, true) +
                       Linear(4 * H, H, true) + Linear(H, 2 * H, true);
  double p = Linear(in, H, true) + EmbedderParameters(d.frequency_dim, H) + EmbedderParameters(in, H) +
             d.refiner_blocks * block;
  if (d.refiner_pooled) p += Linear(in, d.pooled_dim, true) + 1;  // projection and its learned scale
  return p;
}

double DitEmbeddingParameters(const ModelSpec& m) {
  const DitSpec& d = m.dit;
  const double h = m.hidden;
  const double patch_in = static_cast<double>(d.latent_channels) * d.patch * d.patch * d.patch_frames;
  double p = Linear(patch_in, h, true) + EmbedderParameters(d.frequency_dim, h);
  if (d.pooled_dim > 0) p += EmbedderParameters(d.pooled_dim, h);
  if (d.guidance_embed) p += EmbedderParameters(d.frequency_dim, h);
  p += Linear(d.text_dim, h, true) + (d.text_mlp ? Linear(h, h, true) : 0);
  if (d.modulation == Modulation::kShared) p += Linear(h, 6 * h, true);
  return p + DitRefinerParameters(m);
}

double DitHeadParameters(const ModelSpec& m) {
  const DitSpec& d = m.dit;
  const double out = static_cast<double>(d.latent_channels) * d.patch * d.patch * d.patch_frames;
  return Linear(m.hidden, out, true) + ModulationParameters(m, 2);
}

double DitParameterCount(const ModelSpec& m) {
  double p = DitEmbeddingParameters(m) + DitHeadParameters(m);
  for (DitBlockKind k :
       {DitBlockKind::kCrossAttention, DitBlockKind::kDoubleStream, DitBlockKind::kSingleStream})
    p += DitBlocksOf(m, k) * DitBlockParameters(m, k);
  return p;
}

namespace {

// Forward FLOPs of one block of kind `k` for one sample: s latent and t text tokens.
double BlockFlops(const ModelSpec& m, DitBlockKind k, double s, double t) {
  const Widths w = WidthsOf(m);
  const double attn_width = static_cast<double>(m.heads) * m.head_dim();  // 4 x pairs x this
  const double proj = w.h * (w.q + 2 * w.kv) + w.out * w.h, mlp = w.per_matrix * w.h * w.f;
  const double per_block_mod = m.dit.modulation == Modulation::kPerBlock ? 2 * w.h * w.h : 0;  // x rows
  const double n = s + t;
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return 2 * s * (proj + mlp) + 4 * s * s * attn_width                   // self-attention, MLP
             + 2 * s * (w.h * w.q + w.out * w.h) + 2 * t * (2 * w.h * w.kv)  // cross projections
             + 4 * s * t * attn_width + 6 * per_block_mod;
    case DitBlockKind::kDoubleStream:
      return 2 * n * (proj + mlp) + 4 * n * n * attn_width + 12 * per_block_mod;
    case DitBlockKind::kSingleStream:
      return 2 * n * (w.h * (w.q + 2 * w.kv + w.up) + (w.out + w.f) * w.h) + 4 * n * n * attn_width +
             3 * per_block_mod;
  }
  return 0;
}

// The refiner on t text tokens: its projections and attention, and its per-sample conditioning MLPs.
double RefinerFlops(const DitSpec& d, double t) {
  if (d.refiner_blocks <= 0) return 0;
  const double in = d.refiner_in, H = d.refiner_hidden;
  const double per_token = in * H + d.refiner_blocks * (4 * H * H + 8 * H * H);
  const double per_sample = d.frequency_dim * H + H * H + in * H + H * H + d.refiner_blocks * 2 * H * H +
                            (d.refiner_pooled ? in * d.pooled_dim : 0);
  return 2 * t * per_token + d.refiner_blocks * 4 * t * t * H + 2 * per_sample;
}

}  // namespace

double DitSelfAttentionFlops(const ModelSpec& m, double latent, double text) {
  const double n = m.dit.cross_attention ? latent : latent + text;
  return 4.0 * n * n * static_cast<double>(m.heads) * m.head_dim() * m.layers;
}

double DitForwardFlops(const ModelSpec& m, double latent, double text) {
  const DitSpec& d = m.dit;
  const double h = m.hidden;
  const double patch_in = static_cast<double>(d.latent_channels) * d.patch * d.patch * d.patch_frames;
  double f = 0;
  for (int i = 0; i < m.layers; ++i) f += BlockFlops(m, DitBlockOf(m, i), latent, text);
  // Patch embedding and final linear on the latent tokens, text projection on the text tokens.
  f += 2 * latent * patch_in * h * 2 + 2 * text * (d.text_dim * h + (d.text_mlp ? h * h : 0));
  // Per-sample conditioning: timestep (and guidance, pooled) MLPs, shared modulation, final modulation.
  double per_sample = d.frequency_dim * h + h * h;
  if (d.pooled_dim > 0) per_sample += d.pooled_dim * h + h * h;
  if (d.guidance_embed) per_sample += d.frequency_dim * h + h * h;
  per_sample += d.modulation == Modulation::kShared ? 6 * h * h : 2 * h * h;
  return f + 2 * per_sample + RefinerFlops(d, text);
}

// ----- operators -----

namespace {

using internal::Gemm;
using internal::Memory;

// Sets the token set of ops[from..].
void Tag(std::vector<Op>& ops, size_t from, TokenSet t) {
  for (size_t i = from; i < ops.size(); ++i) ops[i].tokens = t;
}

Op CoreAttention(const ModelSpec& m, const LayerOptions& o, AttentionKind kind, TokenSet tokens) {
  const Widths w = WidthsOf(m);
  const double a = o.activation_bytes;
  Op attn;
  attn.name = kind == AttentionKind::kCross ? "cross_attention" : "core_attention";
  attn.kind = OpKind::kAttention;
  attn.shard = Shard::kHeads;
  attn.attention_core = true;
  attn.attention_kind = kind;
  attn.tokens = tokens;
  // Q (and, except for cross-attention, K and V) of each token, the output and the softmax statistics.
  attn.saved_bytes_per_token = a * (kind == AttentionKind::kCross ? w.q : w.q + 2 * w.kv) + 4.0 * m.heads;
  if (o.attention == AttentionImpl::kUnfused) attn.saved_bytes_per_token_per_seq = m.heads * 2 * a;
  return attn;
}

// adaLN modulation of one stream: a per-sample GEMM (per-block modulation), then the norm with scale and
// shift on the tokens.
void AddModulatedNorm(const ModelSpec& m, double a, const std::string& name, int rows, bool gemm,
                      std::vector<Op>& ops) {
  const double h = m.hidden;
  if (gemm && m.dit.modulation == Modulation::kPerBlock) {
    ops.push_back(
        Gemm(name + "_modulation", Shard::kTokens, static_cast<int64_t>(rows) * m.hidden, m.hidden, 0));
    ops.back().tokens = TokenSet::kSample;
  }
  ops.push_back(Memory(name, Shard::kTokens, 3 * a * h, 10 * h, a * h, Access::kNormalization));
}

// QKV projection, q/k norm and rotary of one stream (width q + 2kv from h).
void AddQkv(const ModelSpec& m, double a, const std::string& prefix, std::vector<Op>& ops) {
  const Widths w = WidthsOf(m);
  ops.push_back(
      Gemm(prefix + "qkv_proj", Shard::kColumn, static_cast<int64_t>(w.q + 2 * w.kv), m.hidden, a * w.h));
  if (m.dit.qk_norm != QkNorm::kNone)
    ops.push_back(Memory(prefix + "qk_norm", Shard::kInner, 2 * a * (w.q + w.kv), 8 * (w.q + w.kv),
                         a * (w.q + w.kv), Access::kNormalization));
  ops.push_back(Memory(prefix + "rotary", Shard::kInner, 2 * a * (w.q + w.kv), 6 * (w.q + w.kv), 0));
}

// The MLP (up, activation, down) and the gated residual of one stream.
void AddMlp(const ModelSpec& m, double a, const std::string& prefix, std::vector<Op>& ops) {
  const Widths w = WidthsOf(m);
  ops.push_back(Gemm(prefix + "mlp_up", Shard::kColumn, static_cast<int64_t>(w.up), m.hidden, a * w.h));
  ops.push_back(
      Memory(prefix + (m.gated_mlp ? "swiglu" : "gelu"), Shard::kInner, a * (w.up + w.f), 8 * w.f, a * w.up));
  ops.push_back(Gemm(prefix + "mlp_down", Shard::kRow, m.hidden, static_cast<int64_t>(w.f), a * w.f));
  ops.push_back(Memory(prefix + "mlp_gate_residual", Shard::kTokens, 4 * a * w.h, 2 * w.h, 0));
}

// Output projection and gated residual after an attention.
void AddAttentionOut(const ModelSpec& m, double a, const std::string& prefix, std::vector<Op>& ops) {
  const Widths w = WidthsOf(m);
  ops.push_back(Gemm(prefix + "out_proj", Shard::kRow, m.hidden, static_cast<int64_t>(w.out), a * w.out));
  ops.push_back(Memory(prefix + "attn_gate_residual", Shard::kTokens, 4 * a * w.h, 2 * w.h, 0));
}

// Cross-attention from the latent tokens to the whole text: q from the latent tokens, k and v from the
// text (every context-parallel rank projects the whole text), output projection and residual.
void AddCrossAttention(const ModelSpec& m, const LayerOptions& o, std::vector<Op>& ops) {
  const Widths w = WidthsOf(m);
  const double a = o.activation_bytes;
  if (m.dit.cross_attention_norm)
    ops.push_back(
        Memory("cross_norm", Shard::kTokens, 2 * a * w.h, 8 * w.h, a * w.h, Access::kNormalization));
  ops.push_back(Gemm("cross_q_proj", Shard::kColumn, static_cast<int64_t>(w.q), m.hidden, a * w.h));
  const size_t text_from = ops.size();
  ops.push_back(Gemm("cross_kv_proj", Shard::kColumn, static_cast<int64_t>(2 * w.kv), m.hidden, a * w.h));
  if (m.dit.qk_norm != QkNorm::kNone)
    ops.push_back(
        Memory("cross_k_norm", Shard::kInner, 2 * a * w.kv, 8 * w.kv, a * 2 * w.kv, Access::kNormalization));
  Tag(ops, text_from, TokenSet::kTextWhole);
  if (m.dit.qk_norm != QkNorm::kNone)
    ops.push_back(
        Memory("cross_q_norm", Shard::kInner, 2 * a * w.q, 8 * w.q, a * w.q, Access::kNormalization));
  ops.push_back(CoreAttention(m, o, AttentionKind::kCross, TokenSet::kLayer));
  ops.push_back(Gemm("cross_out_proj", Shard::kRow, m.hidden, static_cast<int64_t>(w.out), a * w.out));
  ops.push_back(Memory("cross_residual", Shard::kTokens, 3 * a * w.h, w.h, 0));
}

std::vector<Op> CrossAttentionBlock(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  std::vector<Op> ops;
  AddModulatedNorm(m, a, "norm1", 6, true, ops);
  AddQkv(m, a, "", ops);
  ops.push_back(CoreAttention(m, o, AttentionKind::kSelf, TokenSet::kLayer));
  AddAttentionOut(m, a, "", ops);
  AddCrossAttention(m, o, ops);
  AddModulatedNorm(m, a, "norm2", 6, false, ops);
  AddMlp(m, a, "", ops);
  return ops;
}

// Double-stream: each stream's modulation, norm and QKV; one joint attention; each stream's output
// projection and MLP.
std::vector<Op> DoubleStreamBlock(const ModelSpec& m, const LayerOptions& o) {
  const double a = o.activation_bytes;
  std::vector<Op> ops;
  const std::pair<const char*, TokenSet> streams[] = {{"img_", TokenSet::kLayer}, {"txt_", TokenSet::kText}};
  for (const auto& [prefix, tokens] : streams) {
    const size_t from = ops.size();
    AddModulatedNorm(m, a, std::string(prefix) + "norm1", 6, true, ops);
    AddQkv(m, a, prefix, ops);
    for (size_t i = from; i < ops.size(); ++i)
      if (ops[i].tokens != TokenSet::kSample) ops[i].tokens = tokens;
  }
  ops.push_back(CoreAttention(m, o, AttentionKind::kJoint, TokenSet::kJoint));
  for (const auto& [prefix, tokens] : streams) {
    const size_t from = ops.size();
    AddAttentionOut(m, a, prefix, ops);
    AddModulatedNorm(m, a, std::string(prefix) + "norm2", 6, false, ops);
    AddMlp(m, a, prefix, ops);
    Tag(ops, from, tokens);
  }
  return ops;
}

// Single-stream (FLUX): one fused projection to QKV and the MLP input, attention and activation in
// parallel, one fused output projection, on the joined sequence.
std::vector<Op> SingleStreamBlock(const ModelSpec& m, const LayerOptions& o) {
  const Widths w = WidthsOf(m);
  const double a = o.activation_bytes;
  std::vector<Op> ops;
  AddModulatedNorm(m, a, "pre_norm", 3, true, ops);
  ops.push_back(
      Gemm("linear1", Shard::kColumn, static_cast<int64_t>(w.q + 2 * w.kv + w.up), m.hidden, a * w.h));
  if (m.dit.qk_norm != QkNorm::kNone)
    ops.push_back(Memory("qk_norm", Shard::kInner, 2 * a * (w.q + w.kv), 8 * (w.q + w.kv), a * (w.q + w.kv),
                         Access::kNormalization));
  ops.push_back(Memory("rotary", Shard::kInner, 2 * a * (w.q + w.kv), 6 * (w.q + w.kv), 0));
  ops.push_back(CoreAttention(m, o, AttentionKind::kJoint, TokenSet::kJoint));
  ops.push_back(Memory(m.gated_mlp ? "swiglu" : "gelu", Shard::kInner, a * (w.up + w.f), 8 * w.f, a * w.up));
  ops.push_back(Gemm("linear2", Shard::kRow, m.hidden, static_cast<int64_t>(w.out + w.f), a * (w.out + w.f)));
  ops.push_back(Memory("gate_residual", Shard::kTokens, 4 * a * w.h, 2 * w.h, 0));
  for (Op& op : ops)
    if (op.tokens != TokenSet::kSample) op.tokens = TokenSet::kJoint;
  return ops;
}

// A per-sample embedder: Linear(in, h) - act - Linear(h, h).
void AddEmbedder(const std::string& name, int64_t in, int64_t h, std::vector<Op>& ops) {
  const size_t from = ops.size();
  ops.push_back(Gemm(name + "_in", Shard::kTokens, h, in, 0));
  ops.push_back(Gemm(name + "_out", Shard::kTokens, h, h, 0));
  Tag(ops, from, TokenSet::kSample);
}

// The text refiner over the text tokens (every context-parallel rank refines the whole text).
void AddRefiner(const DitSpec& d, const LayerOptions& o, std::vector<Op>& ops) {
  const double a = o.activation_bytes, H = d.refiner_hidden;
  const int64_t h = d.refiner_hidden;
  AddEmbedder("refiner_t", d.frequency_dim, h, ops);
  AddEmbedder("refiner_c", d.refiner_in, h, ops);
  const size_t from = ops.size();
  ops.push_back(Gemm("refiner_in", Shard::kTokens, h, d.refiner_in, a * d.refiner_in));
  for (int b = 0; b < d.refiner_blocks; ++b) {
    ops.push_back(Gemm("refiner_qkv", Shard::kTokens, 3 * h, h, a * H));
    Op attn;
    attn.name = "refiner_attention";
    attn.kind = OpKind::kAttention;
    attn.shard = Shard::kTokens;
    attn.attention_kind = AttentionKind::kText;
    attn.saved_bytes_per_token = a * 4 * H;
    ops.push_back(attn);
    ops.push_back(Gemm("refiner_out", Shard::kTokens, h, h, a * H));
    ops.push_back(Gemm("refiner_mlp_up", Shard::kTokens, 4 * h, h, a * H));
    ops.push_back(Gemm("refiner_mlp_down", Shard::kTokens, h, 4 * h, a * 4 * H));
  }
  Tag(ops, from, TokenSet::kTextWhole);
}

}  // namespace

std::vector<Op> BuildDitBlockOps(const ModelSpec& m, DitBlockKind k, const LayerOptions& o) {
  switch (k) {
    case DitBlockKind::kCrossAttention:
      return CrossAttentionBlock(m, o);
    case DitBlockKind::kDoubleStream:
      return DoubleStreamBlock(m, o);
    case DitBlockKind::kSingleStream:
      return SingleStreamBlock(m, o);
  }
  return {};
}

std::vector<Op> BuildDitEmbeddingOps(const ModelSpec& m, const LayerOptions& o) {
  const DitSpec& d = m.dit;
  const double a = o.activation_bytes;
  const int64_t h = m.hidden,
                patch_in = static_cast<int64_t>(d.latent_channels) * d.patch * d.patch * d.patch_frames;
  std::vector<Op> ops;
  ops.push_back(Gemm("patch_embed", Shard::kTokens, h, patch_in, a * patch_in));
  AddEmbedder("time_embed", d.frequency_dim, h, ops);
  if (d.pooled_dim > 0) AddEmbedder("pooled_embed", d.pooled_dim, h, ops);
  if (d.guidance_embed) AddEmbedder("guidance_embed", d.frequency_dim, h, ops);
  if (d.modulation == Modulation::kShared) {
    ops.push_back(Gemm("shared_modulation", Shard::kTokens, 6 * h, h, 0));
    ops.back().tokens = TokenSet::kSample;
  }
  if (d.refiner_blocks > 0) AddRefiner(d, o, ops);
  // Cross-attention reads the whole text on every rank; an MMDiT's text stream is split like the latents.
  const TokenSet text = d.cross_attention ? TokenSet::kTextWhole : TokenSet::kText;
  const size_t from = ops.size();
  ops.push_back(Gemm("text_proj", Shard::kTokens, h, d.text_dim, a * d.text_dim));
  if (d.text_mlp) {
    ops.push_back(Memory("text_gelu", Shard::kTokens, 2 * a * h, 8.0 * h, a * h));
    ops.push_back(Gemm("text_proj_out", Shard::kTokens, h, h, a * h));
  }
  Tag(ops, from, text);
  return ops;
}

std::vector<Op> BuildDitHeadOps(const ModelSpec& m, const LayerOptions& o) {
  const DitSpec& d = m.dit;
  const double a = o.activation_bytes;
  const int64_t out = static_cast<int64_t>(d.latent_channels) * d.patch * d.patch * d.patch_frames;
  std::vector<Op> ops;
  AddModulatedNorm(m, a, "final_norm", 2, true, ops);
  ops.push_back(Gemm("final_linear", Shard::kTokens, out, m.hidden, a * m.hidden));
  // Flow-matching (or epsilon) MSE in fp32: read the prediction and the target, write the gradient.
  ops.push_back(Memory("mse_loss", Shard::kTokens, (a + 8.0) * out, 3.0 * out, 0, Access::kNormalization));
  return ops;
}

}  // namespace dlsim::model
