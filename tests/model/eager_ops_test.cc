// The eager decoder block's memory-bound bytes (model/layer_graph.h, EagerLayerOps): the closed forms on the
// shapes of the three shared H200 traces, and the bytes those traces' kernels moved, measured per layer with
//   scripts/trace-layer-bytes.py ../shared/data/profiles/h200/traces/llama-3.2-1b_amp_2x2048.kineto.json.gz
//   4096 scripts/trace-layer-bytes.py .../gpt2-xl_amp_2x1024.kineto.json.gz 2048 scripts/trace-layer-bytes.py
//   .../llama-3.1-8b_bf16_ckpt_2x4096.kineto.json.gz 8192 --layer 6
// ("without the weight casts"; the 1B forward with --cat-bytes 4, its rotary runs in fp32; the 8B backward
// less its recomputed forward, 945,164 - 334,338). The GEMMs and the attention are the fused graph's.
#include <gtest/gtest.h>

#include "dlsim/model/layer_graph.h"

namespace dlsim::model {
namespace {

ModelSpec Llama(int hidden, int heads, int kv_heads, int ffn) {
  ModelSpec m;
  m.name = "llama";
  m.layers = 16;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.ffn_hidden = ffn;
  m.vocab = 128256;
  m.gated_mlp = true;
  m.norm = Norm::kRmsNorm;
  m.position_embedding = PositionEmbedding::kRope;
  return m;
}

ModelSpec Gpt2Xl() {
  ModelSpec m;
  m.name = "gpt2-xl";
  m.layers = 48;
  m.hidden = 1600;
  m.heads = 25;
  m.kv_heads = 25;
  m.ffn_hidden = 6400;
  m.vocab = 50257;
  m.linear_bias = true;
  m.norm = Norm::kLayerNorm;
  m.position_embedding = PositionEmbedding::kLearned;
  m.max_seq_len = 1024;
  return m;
}

struct Bytes2 {
  double fwd = 0, bwd = 0;
};

Bytes2 MemoryBytes(const std::vector<Op>& ops) {
  Bytes2 b;
  for (const Op& op : ops) {
    if (op.kind != OpKind::kMemory) continue;
    b.fwd += op.bytes_per_token;
    b.bwd += op.bwd_bytes_per_token >= 0 ? op.bwd_bytes_per_token : 2 * op.bytes_per_token;
  }
  return b;
}

Bytes2 Eager(const ModelSpec& m, double residual_bytes) {
  return MemoryBytes(BuildLayerOps(m, {.kernels = Kernels::kEager, .residual_bytes = residual_bytes}));
}

TEST(EagerOps, ClosedFormsOnTheTracedShapes) {
  // Llama 3.2 1B under autocast: a = 2, r = 4, h = q = 2048, k = 512, f = 8192, e = q + k = 2560.
  const Bytes2 one = Eager(Llama(2048, 32, 8, 8192), 4);
  EXPECT_DOUBLE_EQ(one.fwd, 16 * 2048 + 12 * 2048 + 38 * 2560 + 4 * 2048 + 20 * 2048 + 10 * 8192.0);
  EXPECT_DOUBLE_EQ(one.bwd, 24 * 2048 + 12 * 2048 + 48 * 2560 + 4 * (2 * 2048 + 512) + 4 * (2048 + 2 * 512) +
                                36 * 2048 + 26 * 8192.0);
  // GPT-2 XL under autocast: no rotary and no transposes; biases on every linear layer.
  const Bytes2 xl = Eager(Gpt2Xl(), 4);
  EXPECT_DOUBLE_EQ(xl.fwd, (16 + 12 + 20) * 1600 + 4 * 6400.0);
  EXPECT_DOUBLE_EQ(xl.bwd,
                   (24 + 12 + 36) * 1600 + 6 * 6400 + 4 * (3 * 1600 + 1600 + 6400 + 1600) + 4 * 4800.0);
  // Llama 3.1 8B in pure bf16: no casts, the rotary in bf16.
  const Bytes2 eight = Eager(Llama(4096, 32, 8, 14336), 2);
  EXPECT_DOUBLE_EQ(eight.fwd, 8 * 4096 + 18 * 5120 + 4 * 4096 + 12 * 4096 + 10 * 14336.0);
}

TEST(EagerOps, WithinFourPercentOfTheTracesPerLayer) {
  const struct {
    ModelSpec m;
    double r, fwd, bwd;  // measured B/token per layer (header)
  } cases[] = {{Llama(2048, 32, 8, 8192), 4, 286212, 594444 - 176128 + 88064},
               {Gpt2Xl(), 4, 102455, 230471},
               {Llama(4096, 32, 8, 14336), 2, 334338, 945164 - 334338}};
  for (const auto& c : cases) {
    const Bytes2 b = Eager(c.m, c.r);
    EXPECT_NEAR(b.fwd / c.fwd, 1.0, 0.04) << c.m.hidden;
    EXPECT_NEAR(b.bwd / c.bwd, 1.0, 0.04) << c.m.hidden;
    const Bytes2 fused = MemoryBytes(BuildLayerOps(c.m, {}));
    EXPECT_LT(fused.fwd + fused.bwd, 0.65 * (c.fwd + c.bwd)) << "the fused graph moves 38-63% of it";
  }
}

TEST(EagerOps, SameGemmsAndAttentionAsTheFusedGraph) {
  const ModelSpec m = Llama(2048, 32, 8, 8192);
  std::vector<std::string> fused, eager;
  for (const Op& op : BuildLayerOps(m, {}))
    if (op.kind != OpKind::kMemory) fused.push_back(op.name);
  for (const Op& op : BuildLayerOps(m, {.kernels = Kernels::kEager, .residual_bytes = 4}))
    if (op.kind != OpKind::kMemory) eager.push_back(op.name);
  EXPECT_EQ(eager, fused);
  // The eager head: the logits cast to fp32 and a log-softmax where the fused head has one kernel.
  double head = 0;
  for (const Op& op : BuildHeadOps(m, {.kernels = Kernels::kEager, .residual_bytes = 4}))
    if (op.kind == OpKind::kMemory) head += op.bytes_per_token;
  EXPECT_DOUBLE_EQ(head, 8 * 2048 + 6 * 2048 + 6 * 128256.0 + 8 * 128256.0);
}

// What the eager block keeps for its backward beyond the fused graph (issue 32, memory fidelity), per token
// in closed form: SDPA's output besides the output projection's reshaped copy (a q); with rotary, the rotated
// q and k besides the fused QKV output that v's view keeps alive (a (q + k)); SiLU's output besides the gate
// (a f). GPT-2 (learned positions, GELU) keeps only the first.
double Saved(const std::vector<Op>& ops) {
  double saved = 0;
  for (const Op& op : ops) saved += op.saved_bytes_per_token;
  return saved;
}

TEST(EagerOps, SavedBytesBeyondTheFusedGraphInClosedForm) {
  const ModelSpec llama = Llama(2048, 32, 8, 8192);  // q 2048, k 512, f 8192
  const double a = 2;
  EXPECT_DOUBLE_EQ(
      Saved(BuildLayerOps(llama, {.kernels = Kernels::kEager})) - Saved(BuildLayerOps(llama, {})),
      a * 2048 + a * (2048 + 512) + a * 8192);
  const ModelSpec gpt = Gpt2Xl();
  EXPECT_DOUBLE_EQ(Saved(BuildLayerOps(gpt, {.kernels = Kernels::kEager})) - Saved(BuildLayerOps(gpt, {})),
                   a * 1600);
  // Under autocast each of the two norms keeps its fp32 input (r h), not a bf16 one.
  EXPECT_DOUBLE_EQ(Saved(BuildLayerOps(llama, {.kernels = Kernels::kEager, .residual_bytes = 4})) -
                       Saved(BuildLayerOps(llama, {.kernels = Kernels::kEager})),
                   2 * (4 - a) * 2048);
  // An RMSNorm written in Python with an fp32 upcast keeps the fp32 input and its normalised output: (4 + r)
  // h per norm instead of r h, in the layer's two and the final one; LayerNorm (GPT-2) is PyTorch's kernel.
  const LayerOptions python{.kernels = Kernels::kEager, .norm_impl = NormImpl::kPythonFp32};
  EXPECT_DOUBLE_EQ(
      Saved(BuildLayerOps(llama, python)) - Saved(BuildLayerOps(llama, {.kernels = Kernels::kEager})),
      2 * 4 * 2048);
  EXPECT_DOUBLE_EQ(
      Saved(BuildHeadOps(llama, python)) - Saved(BuildHeadOps(llama, {.kernels = Kernels::kEager})),
      4 * 2048);
  EXPECT_DOUBLE_EQ(Saved(BuildLayerOps(gpt, python)),
                   Saved(BuildLayerOps(gpt, {.kernels = Kernels::kEager})));
}

// The PyTorch operators per layer forward that torch.profiler recorded between two SDPA calls of the shared
// autocast traces (every cpu_op, nested ones included, one mid-model layer; docs/training-model.md "Eager
// host time"): Llama 3.2 1B 156, GPT-2 XL 123.
TEST(EagerHost, CpuOpsPerLayerAsTraced) {
  const LayerOptions autocast{.kernels = Kernels::kEager, .residual_bytes = 4};
  EXPECT_DOUBLE_EQ(EagerLayerCpuOps(Llama(2048, 32, 8, 8192), autocast), 156);
  EXPECT_DOUBLE_EQ(EagerLayerCpuOps(Gpt2Xl(), autocast), 123);
  // Pure bf16: no casts (four linears lose 4 each and the two on norm outputs 4 more, the rotary halves 4).
  const LayerOptions bf16{.kernels = Kernels::kEager};
  EXPECT_DOUBLE_EQ(EagerLayerCpuOps(Llama(2048, 32, 8, 8192), bf16), 156 - 16 - 8 - 8);
  EXPECT_DOUBLE_EQ(EagerLayerCpuOps(Gpt2Xl(), bf16), 123 - 16 - 8 - 8);
}

// Host time is measured on a multi-head Llama-style layer: that layer scales by 1, a GQA Llama by its two
// fewer view ops, GPT-2 (no rotary, GELU) by its fewer operators, and more so without autocast's casts.
TEST(EagerHost, ScaleAgainstTheMeasuredLayer) {
  const LayerOptions autocast{.kernels = Kernels::kEager, .residual_bytes = 4},
      bf16{.kernels = Kernels::kEager};
  EXPECT_DOUBLE_EQ(EagerHostScale(Llama(256, 4, 4, 688), autocast), 1.0);
  EXPECT_DOUBLE_EQ(EagerHostScale(Llama(2048, 32, 8, 8192), autocast), 156.0 / 158);
  EXPECT_DOUBLE_EQ(EagerHostScale(Gpt2Xl(), autocast), 123.0 / 158);
  EXPECT_DOUBLE_EQ(EagerHostScale(Gpt2Xl(), bf16), 91.0 / 126);
}

}  // namespace
}  // namespace dlsim::model
