// The sweep machinery of the reproductions (src/repro/sweep.h): ratio statistics skip the
// infeasible points, rows keep their order, Fastest keeps the first of the fastest feasible.
#include "sweep.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace dlsim::repro::internal {
namespace {

TEST(RatioTest, ZeroWhenTheDenominatorIsNotPositive) {
  EXPECT_DOUBLE_EQ(Ratio(3, 2), 1.5);
  EXPECT_EQ(Ratio(3, 0), 0.0);
  EXPECT_EQ(Ratio(3, -1), 0.0);
}

TEST(RatioStatsTest, StatisticsSkipNonPositiveRatios) {
  RatioStats s;
  for (double r : {2.0, 0.0, 8.0, -1.0}) s.Add(r);
  EXPECT_EQ(s.points, 4);
  EXPECT_EQ(s.counted, 2);
  EXPECT_EQ(s.skipped(), 2);
  EXPECT_DOUBLE_EQ(s.max, 8.0);
  EXPECT_DOUBLE_EQ(s.Mean(), 5.0);
  EXPECT_DOUBLE_EQ(s.GeoMean(), 4.0);  // sqrt(2 x 8)
}

TEST(RatioStatsTest, NoFeasiblePointGivesZeros) {
  RatioStats s;
  s.Add(0.0);
  EXPECT_EQ(s.max, 0.0);
  EXPECT_EQ(s.Mean(), 0.0);
  EXPECT_EQ(s.GeoMean(), 0.0);
  EXPECT_EQ(s.skipped(), 1);
}

TEST(SweepTest, RowsInOrderAndBesideRowsOutOfTheHeadline) {
  Sweep sweep;
  sweep.Add({{"point", "a"}}, 3.0);
  sweep.AddBeside({{"point", "control"}});
  sweep.Add({{"point", "b"}}, 0.0);
  EXPECT_EQ(sweep.rows(), 3u);
  EXPECT_EQ(sweep.ratios().points, 2);
  EXPECT_DOUBLE_EQ(sweep.ratio(0), 3.0);
  EXPECT_EQ(sweep.ratio(1), 0.0);
  const nlohmann::ordered_json rows = sweep.TakeDetails();
  ASSERT_TRUE(rows.is_array());
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0]["point"], "a");
  EXPECT_EQ(rows[1]["point"], "control");
  EXPECT_EQ(rows[2]["point"], "b");
  EXPECT_EQ(sweep.rows(), 0u);
}

struct FakeRun {
  bool feasible = false;
  double mean_s = 0;
};

TEST(FastestTest, KeepsTheFirstOfTheFastestFeasible) {
  Fastest<FakeRun, int> best;
  EXPECT_FALSE(best.found);
  EXPECT_EQ(best.config, 0);   // value-initialised before any run is kept
  best.Keep({false, 0.5}, 1);  // infeasible, never kept even though fastest
  EXPECT_FALSE(best.found);
  best.Keep({true, 2.0}, 2);
  best.Keep({true, 1.0}, 3);
  best.Keep({true, 1.0}, 4);  // a tie keeps the first
  best.Keep({true, 1.5}, 5);
  EXPECT_TRUE(best.found);
  EXPECT_EQ(best.config, 3);
  EXPECT_DOUBLE_EQ(best.run.mean_s, 1.0);
}

}  // namespace
}  // namespace dlsim::repro::internal
