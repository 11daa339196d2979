// Prefill attention by kernel family (ServeOptions::attention_backend): the scenario's family, else the
// engine's (vLLM 0.5 / 0.6 run FlashAttention-2 on Ampere and later), else `model`; the prefill iteration
// changes by exactly the layers' difference of the two kernels' times (closed form against the compute
// model); decode attention (the paged kernel) does not change.
#include <gtest/gtest.h>

#include "dlsim/serve/engine_profile.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using cost::AttentionBackend;
using testing::BaseOptions;
using testing::Env;

TEST(ServeAttentionBackend, ScenarioThenEngineThenModel) {
  ServeOptions o = BaseOptions("llama3.1-8b", "h200-sxm-141gb");
  EXPECT_EQ(AttentionBackendOf(o), AttentionBackend::kModel);  // engine `default`: not measured
  o.engine = "vllm-0.6";
  EXPECT_EQ(AttentionBackendOf(o), AttentionBackend::kFlash2);
  o.engine = "vllm-0.5";
  EXPECT_EQ(AttentionBackendOf(o), AttentionBackend::kFlash2);
  o.engine = "vllm-v1";  // FlashAttention-3 on Hopper: no measured family, so `model`
  EXPECT_EQ(AttentionBackendOf(o), AttentionBackend::kModel);
  o.attention_backend = AttentionBackend::kCudnn;
  EXPECT_EQ(AttentionBackendOf(o), AttentionBackend::kCudnn);
}

// One 8,192-token prompt on the H200: cuDNN's measured family is about twice FlashAttention-2's speed there,
// and the iteration differs by the 32 layers' difference of the two kernels, nothing else.
TEST(ServeAttentionBackend, PrefillChangesByTheKernelDifference) {
  ServeOptions o = BaseOptions("llama3.1-8b", "h200-sxm-141gb");
  const int64_t s = 8192;
  const BatchShape prefill = testing::OnePromptPrefill(s);
  auto time = [&](AttentionBackend b, const BatchShape& shape) {
    o.attention_backend = b;
    auto cost = MakeCostModel(o, *Env().env);
    EXPECT_TRUE(cost.ok());
    return (*cost)->Time(shape).Total(o.model.layers);
  };
  auto kernel = [&](AttentionBackend b) {
    const auto compute = CostInputs(o, *Env().env).compute;
    return compute->AttentionForward(
        {.heads = 32, .kv_heads = 8, .seq_q = s, .seq_kv = s, .head_dim = 128, .backend = b}, o.kv_dtype);
  };
  const Duration flash = time(AttentionBackend::kFlash2, prefill);
  const Duration cudnn = time(AttentionBackend::kCudnn, prefill);
  const Duration expected =
      (kernel(AttentionBackend::kFlash2) - kernel(AttentionBackend::kCudnn)) * int64_t{32};
  EXPECT_GT(expected.ToMillis(), 10.0);  // the families differ measurably at 8K
  EXPECT_NEAR((flash - cudnn).ToMillis(), expected.ToMillis(), 1e-6);
  const BatchShape decode = BatchShape::Decode(32, 32 * 8192);
  EXPECT_EQ(time(AttentionBackend::kFlash2, decode), time(AttentionBackend::kCudnn, decode));
}

}  // namespace
}  // namespace dlsim::serve
