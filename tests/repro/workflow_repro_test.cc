// The ByteComp, PICASSO and QSync reproductions end to end: each row must show the mechanism its paper
// credits (docs/reproductions.md), not only a positive ratio.
#include <gtest/gtest.h>

#include "common/sanitizers.h"
#include "dlsim/repro/reproduction.h"
#include "repro/run_repro.h"

namespace dlsim::repro {
namespace {

using testing::At;
using testing::RunRepro;

TEST(ByteCompRepro, EspressoBeatsItsBaselinesAndMatchesBruteForce) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  const ReproResult r = RunRepro("bytecomp");
  ASSERT_EQ(r.details.size(), 4u);
  for (size_t row = 0; row < 3; ++row) {
    EXPECT_LT(At(r, row, "espresso_ms"), At(r, row, "baseline_ms")) << row;
    EXPECT_LE(At(r, row, "espresso_ms"), At(r, row, "espresso_gpu_ms")) << row;  // CPU offload never hurts
    EXPECT_LE(At(r, row, "baseline_ms"), At(r, row, "fp32_ms")) << row;
    EXPECT_GT(At(r, row, "gpu_compressed") + At(r, row, "cpu_compressed"), 0) << row;
  }
  EXPECT_DOUBLE_EQ(r.our_ratio, At(r, 0, "our_ratio"));
  EXPECT_DOUBLE_EQ(At(r, 3, "our_ratio"), 1.0);  // greedy = brute force on the small model
}

TEST(PicassoRepro, EachOptimisationAddsThroughput) {
  const ReproResult r = RunRepro("picasso");
  ASSERT_EQ(r.details.size(), 12u);
  enum { kPs, kPsOpt, kGpu, kPack, kInterleave, kPicasso };
  EXPECT_GT(At(r, kGpu, "speedup_vs_tf_ps"), 1);
  EXPECT_LT(At(r, kPack, "kernels"), At(r, kGpu, "kernels") / 10);
  EXPECT_GT(At(r, kPack, "speedup_vs_tf_ps"), At(r, kGpu, "speedup_vs_tf_ps"));
  EXPECT_GT(At(r, kInterleave, "speedup_vs_tf_ps"), At(r, kPack, "speedup_vs_tf_ps"));
  EXPECT_GT(At(r, kPicasso, "speedup_vs_tf_ps"), At(r, kInterleave, "speedup_vs_tf_ps"));
  EXPECT_LT(At(r, kPicasso, "comm_ms"), At(r, kInterleave, "comm_ms"));
  EXPECT_GT(At(r, kPicasso, "hit_ratio"), 0.1);
  EXPECT_LT(At(r, kPsOpt, "speedup_vs_tf_ps"), At(r, kPicasso, "speedup_vs_tf_ps"));
  EXPECT_NEAR(r.our_ratio, At(r, kPicasso, "speedup_vs_tf_ps"), 0.006);
}

TEST(QSyncRepro, KeepsUpWithFp32WorkersWithLessQuantisation) {
  const ReproResult r = RunRepro("qsync");
  ASSERT_EQ(r.details.size(), 8u);
  enum { kFp32, kFp16, kInt8, kQSync };
  EXPECT_FALSE(r.details[kFp32]["keeps_up"].get<bool>());  // the T4 straggles in fp32
  EXPECT_TRUE(r.details[kQSync]["keeps_up"].get<bool>());
  EXPECT_LT(At(r, kQSync, "indicator_loss"), At(r, kFp16, "indicator_loss"));
  EXPECT_LT(At(r, kQSync, "indicator_loss"), At(r, kInt8, "indicator_loss"));
  EXPECT_LE(At(r, kQSync, "t4_compute_ms"), At(r, kQSync, "v100_compute_ms"));
  EXPECT_DOUBLE_EQ(r.our_ratio, 1.0);
  EXPECT_FALSE(r.details[4 + kQSync]["keeps_up"].get<bool>());  // against AMP V100s nothing keeps up
}

}  // namespace
}  // namespace dlsim::repro
