// Per-operator breakdown of a pure decode iteration (Llama-2-7B, one A100-80GB,
// 41 requests at 800 tokens of context) against its physical bounds: every
// weight and every K/V byte read once from HBM. DLSIM_VERBOSE=1 prints the
// table that docs/serving.md quotes.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

struct Fixture {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb", 1);
  ProfiledCostInputs in = CostInputs(o, *Env().env);
  std::unique_ptr<IterationCostModel> cost = MakeProfiledCostModel(in);
  double bw = o.gpu.hbm_bandwidth.value();  // bytes/s
  double Ms(double bytes) const { return bytes / bw * 1e3; }
  // K and V of `tokens` tokens in one layer, fp16.
  double KvBytes(double tokens) const { return 2.0 * tokens * o.model.kv_heads * o.model.head_dim() * 2; }
  static BatchShape Decode(int64_t n, int64_t ctx) {
    return {.decode_requests = n, .decode_context = n * ctx, .logits = n};
  }
};

constexpr int64_t kRequests = 41, kContext = 800;

TEST(DecodeBreakdown, OperatorsAgainstHbmBounds) {
  const Fixture f;
  ASSERT_NE(f.in.profile, nullptr);
  const OperatorProfile& p = *f.in.profile;
  const model::ModelSpec& m = f.o.model;
  const double h = m.hidden, d = m.head_dim(), ffn = m.ffn_hidden, t = kRequests;
  // Weight bytes of the four GEMMs of a layer (fp16).
  const struct {
    ProfiledOp op;
    double bytes;
  } gemms[] = {{ProfiledOp::kQkvProj, 2 * h * (m.heads + 2 * m.kv_heads) * d},
               {ProfiledOp::kOutProj, 2 * h * h},
               {ProfiledOp::kMlpUp, 2 * h * 2 * ffn},
               {ProfiledOp::kMlpDown, 2 * ffn * h}};
  const bool verbose = std::getenv("DLSIM_VERBOSE") != nullptr;
  double gemm_ms = 0, gemm_bound = 0;
  for (const auto& g : gemms) {
    const double ms = p.InterpolateMs(g.op, t), bound = f.Ms(g.bytes);
    if (verbose)
      std::printf("%-16s %.4f ms/layer, weights %.1f MB, HBM bound %.4f ms (%.2fx)\n",
                  std::string(ProfiledOpName(g.op)).c_str(), ms, g.bytes / 1e6, bound, ms / bound);
    // Measured GEMMs at 41 tokens stream their weights at 50-100% of HBM peak.
    EXPECT_GE(ms, bound) << ProfiledOpName(g.op);
    EXPECT_LE(ms, 2 * bound) << ProfiledOpName(g.op);
    gemm_ms += ms;
    gemm_bound += bound;
  }
  const double layer_ms = p.LayerMs(t), small_ms = layer_ms - gemm_ms;
  // Norms, rotary, activation, add: launch-bound kernels of a few us each.
  EXPECT_LT(small_ms, 0.1 * layer_ms);

  const IterationTime it = f.cost->Time(Fixture::Decode(kRequests, kContext));
  const double attn_ms = it.per_layer.ToMillis() - layer_ms;
  const double kv_bound = f.Ms(f.KvBytes(t * kContext));
  // Paged attention is a stream over the KV cache: at least 60% of HBM peak.
  EXPECT_GE(attn_ms, kv_bound);
  EXPECT_LE(attn_ms, kv_bound / 0.6);

  const double lm_bound = f.Ms(2.0 * m.vocab * h);
  const double total = it.Total(m.layers).ToMillis();
  const double bound = m.layers * (gemm_bound + kv_bound) + lm_bound;
  if (verbose) {
    std::printf("small ops %.4f ms/layer; layer GEMMs %.4f ms (bound %.4f)\n", small_ms, gemm_ms, gemm_bound);
    std::printf("decode attention %.4f ms/layer, KV %.1f MB, HBM bound %.4f ms (%.2fx)\n", attn_ms,
                f.KvBytes(t * kContext) / 1e6, kv_bound, attn_ms / kv_bound);
    std::printf("per layer %.4f ms x %d = %.2f ms; fixed (embedding, LM head) %.3f ms (LM head bound %.3f)\n",
                it.per_layer.ToMillis(), m.layers, it.per_layer.ToMillis() * m.layers, it.fixed.ToMillis(),
                lm_bound);
    std::printf("iteration %.2f ms; all weights + KV once at HBM peak %.2f ms (%.2fx)\n", total, bound,
                total / bound);
  }
  EXPECT_GE(total, bound);
  EXPECT_LE(total, 1.6 * bound);
}

// KV bytes are counted once per token: more context adds exactly its K/V
// stream, and the token-level operators and per-layer costs do not depend on
// the context.
TEST(DecodeBreakdown, ContextAddsOnlyItsKvStream) {
  const Fixture f;
  const IterationTime a = f.cost->Time(Fixture::Decode(kRequests, kContext));
  const IterationTime b = f.cost->Time(Fixture::Decode(kRequests, 2 * kContext));
  const double extra = (b.per_layer - a.per_layer).ToMillis();
  const double kv = f.Ms(f.KvBytes(static_cast<double>(kRequests) * kContext));
  EXPECT_GE(extra, 0.99 * kv);
  EXPECT_LE(extra, kv / 0.6);
  EXPECT_EQ(a.fixed, b.fixed);
  // One request of 41 x 800 tokens reads the same KV as 41 of 800: the
  // attention differs only by the 40 extra queries and token-level operators.
  const IterationTime one =
      f.cost->Time({.decode_requests = 1, .decode_context = kRequests * kContext, .logits = 1});
  const double linear_diff = f.in.profile->LayerMs(kRequests) - f.in.profile->LayerMs(1);
  EXPECT_NEAR((a.per_layer - one.per_layer).ToMillis(), linear_diff, 0.02);
}

}  // namespace
}  // namespace dlsim::serve
