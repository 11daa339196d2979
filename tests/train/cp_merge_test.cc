// PyTorch's experimental ring (parallel.cp_impl: pytorch): the bytes its copies, fp32 merges and fp32
// gradient accumulation move, in closed form (train/cp_merge.h), and what they add to a step.
#include "dlsim/train/cp_merge.h"

#include <gtest/gtest.h>

namespace dlsim::train {
namespace {

TEST(CpMerge, NoRingNoTraffic) {
  const CpMergeBytes b = CpMergeBytesPerToken(1, 4096, 4096);
  EXPECT_EQ(b.fwd, 0);
  EXPECT_EQ(b.bwd, 0);
}

// Two ranks, unit widths: forward 8 + 8 (one K/V cat) + 12 + 38 (one merge) = 66; backward 12 (zeros) + 8
// (contiguous) + 8 (one cat) + 20 (first step's dK/dV +=) + 26 (one half update) + 32 (two dK/dV cats) + 20
// (two dQ +=) + 18 (the casts back) = 144.
TEST(CpMerge, TwoRanksInClosedForm) {
  const CpMergeBytes b = CpMergeBytesPerToken(2, 1, 1);
  EXPECT_DOUBLE_EQ(b.fwd, 66);
  EXPECT_DOUBLE_EQ(b.bwd, 144);
}

// The query and key widths enter apart: at cp 8 the query's terms are 12 + 38 x 7 = 278 forward and
// 4 + 10 x 8 + 6 = 90 backward; the keys' 8 + 8 x 7 = 64 and 8 + 8 + 8 x 7 + 20 + 26 x 7 + 16 x 8 + 12 = 414.
TEST(CpMerge, QueryAndKeyWidthsSeparately) {
  const CpMergeBytes q = CpMergeBytesPerToken(8, 1, 0), kv = CpMergeBytesPerToken(8, 0, 1);
  EXPECT_DOUBLE_EQ(q.fwd, 278);
  EXPECT_DOUBLE_EQ(q.bwd, 90);
  EXPECT_DOUBLE_EQ(kv.fwd, 64);
  EXPECT_DOUBLE_EQ(kv.bwd, 414);
  const CpMergeBytes both = CpMergeBytesPerToken(8, 3, 5);
  EXPECT_DOUBLE_EQ(both.fwd, 3 * q.fwd + 5 * kv.fwd);
  EXPECT_DOUBLE_EQ(both.bwd, 3 * q.bwd + 5 * kv.bwd);
}

}  // namespace
}  // namespace dlsim::train
