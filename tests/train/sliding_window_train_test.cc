// Training a sliding-window model (issue 37): FlashAttention skips the key blocks outside the window, so at
// 32K tokens Mistral v0.1's 4,096-token window computes about a quarter of the attention (the kernel's block
// count in closed form), interleaved layers average the two, and the unfused path gains nothing.
#include <gtest/gtest.h>

#include "common/train_fixture.h"

namespace dlsim::train {
namespace {

class SlidingWindowTrainTest : public testing::CatalogTrainTest {
 protected:
  TrainOptions Options(int window, int pattern, model::AttentionImpl impl = model::AttentionImpl::kFlash) {
    TrainOptions o;
    o.model = Model("mistral-7b-v0.1");
    o.model.layers = 4;  // fast; every layer the same shape
    o.model.sliding_window = window;
    o.model.sliding_window_pattern = pattern;
    o.hardware.gpu = "h100-sxm5-80gb";
    o.hardware.node = "dgx-h100";
    o.hardware.gpus = 8;
    o.training.seq_len = 32768;
    o.training.global_batch = 8;
    o.training.attention = impl;
    o.parallel.recompute = Recompute::kFull;
    return o;
  }
};

TEST_F(SlidingWindowTrainTest, FlashAttentionComputesOnlyTheWindow) {
  const StepResult full = Run(Options(0, 0)), windowed = Run(Options(4096, 0)), half = Run(Options(4096, 2));
  ASSERT_TRUE(full.feasible && windowed.feasible && half.feasible) << full.reason << windowed.reason;
  // 256 query blocks see sum min(v, 33) = 7,920 key blocks through the window, 32,896 without.
  const double ratio = windowed.breakdown.attention_s / full.breakdown.attention_s;
  EXPECT_NEAR(ratio, 7920.0 / 32896, 0.03) << ratio;
  EXPECT_NEAR(half.breakdown.attention_s, (full.breakdown.attention_s + windowed.breakdown.attention_s) / 2,
              1e-6 * full.breakdown.attention_s);
  EXPECT_DOUBLE_EQ(windowed.breakdown.gemm_s, full.breakdown.gemm_s);
  EXPECT_LT(windowed.step_time_s, full.step_time_s);
}

TEST_F(SlidingWindowTrainTest, UnfusedAttentionComputesEveryScore) {
  const StepResult full = Run(Options(0, 0, model::AttentionImpl::kUnfused));
  const StepResult windowed = Run(Options(4096, 0, model::AttentionImpl::kUnfused));
  ASSERT_TRUE(full.feasible && windowed.feasible);
  EXPECT_DOUBLE_EQ(windowed.step_time_s, full.step_time_s);
}

}  // namespace
}  // namespace dlsim::train
