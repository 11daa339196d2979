// `dlsim repro spindle` end to end: one row per zoo workload, the mechanism's direction on each, and
// the same numbers on a second run.
#include <gtest/gtest.h>

#include <algorithm>

#include "repro/run_repro.h"

namespace dlsim::repro {
namespace {

TEST(SpindleRepro, RunsTheZoo) {
  const ReproResult r = testing::RunRepro("spindle");
  EXPECT_EQ(r.name, "spindle");
  EXPECT_DOUBLE_EQ(r.paper_ratio, 1.71);
  ASSERT_EQ(r.details.size(), 18u);  // 6 zoo rows, then 6 without the host floor and 6 with 4x batches
  double best = 0;
  for (size_t i = 0; i < r.details.size(); ++i) {
    EXPECT_EQ(r.details[i]["variant"], i < 6 ? "zoo" : i < 12 ? "no host floor" : "4x batch");
    const double speedup = testing::At(r, i, "speedup");
    EXPECT_GE(speedup, 1.0) << i;
    EXPECT_LE(testing::At(r, i, "waves"), testing::At(r, i, "metaops")) << i;
    if (i < 6) best = std::max(best, speedup);
  }
  EXPECT_NEAR(r.our_ratio, best, 1e-3);
  const ReproResult again = testing::RunRepro("spindle");
  EXPECT_EQ(again.details.dump(), r.details.dump());
}

}  // namespace
}  // namespace dlsim::repro
