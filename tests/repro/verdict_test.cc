// The verdict on a reproduction: the band's edges, no claim, no declared operating point, a
// reproduction that could not run, and the points table's geometric mean.
#include "dlsim/repro/verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim::repro {
namespace {

ReproResult Result(double paper, double ours, const char* point = "the paper's point") {
  ReproResult r;
  r.paper_ratio = paper;
  r.our_ratio = ours;
  r.operating_point = point;
  return r;
}

TEST(Verdict, InsideTheBandIsReproducedAtItsEdges) {
  EXPECT_EQ(JudgeResult(Result(2.0, 1.6)).status, VerdictStatus::kReproduced);  // 0.8 exactly
  EXPECT_EQ(JudgeResult(Result(2.0, 2.5)).status, VerdictStatus::kReproduced);  // 1.25 exactly
  EXPECT_EQ(JudgeResult(Result(2.0, 1.58)).status, VerdictStatus::kOff);        // 0.79
  EXPECT_EQ(JudgeResult(Result(2.0, 2.52)).status, VerdictStatus::kOff);        // 1.26
  EXPECT_DOUBLE_EQ(JudgeResult(Result(4.0, 5.0)).ratio_to_paper, 1.25);
  EXPECT_TRUE(JudgeResult(Result(2.0, 2.0)).cause.empty());
}

TEST(Verdict, OffCarriesTheMeasuredCauseOrSaysThereIsNone) {
  ReproResult r = Result(1.5, 2.05);
  EXPECT_EQ(JudgeResult(r).cause, "cause not yet measured");
  r.off_cause = "the baseline queues 9x longer than the paper's";
  EXPECT_EQ(JudgeResult(r).cause, r.off_cause);
}

TEST(Verdict, AnUndeclaredOperatingPointIsNeverReproduced) {
  const Verdict v = JudgeResult(Result(2.0, 2.0, ""));
  EXPECT_EQ(v.status, VerdictStatus::kOff);
  EXPECT_NE(v.cause.find("not declared"), std::string::npos) << v.cause;
}

TEST(Verdict, NoClaimAndNoResult) {
  EXPECT_EQ(JudgeResult(Result(0, 1.63)).status, VerdictStatus::kNoClaim);
  EXPECT_EQ(JudgeResult(Result(NAN, 1.63)).status, VerdictStatus::kNoClaim);
  const Verdict v = JudgeResult(Result(3.0, 0));
  EXPECT_EQ(v.status, VerdictStatus::kOff);
  EXPECT_EQ(v.ratio_to_paper, 0);
  EXPECT_NE(v.cause.find("could not run"), std::string::npos);
}

TEST(Verdict, NamesRoundTrip) {
  for (VerdictStatus s : {VerdictStatus::kReproduced, VerdictStatus::kOff, VerdictStatus::kNoClaim}) {
    VerdictStatus back = VerdictStatus::kNoClaim;
    ASSERT_TRUE(ParseVerdictName(VerdictName(s), back));
    EXPECT_EQ(back, s);
  }
  VerdictStatus out = VerdictStatus::kOff;
  EXPECT_FALSE(ParseVerdictName("Reproduced", out));
  EXPECT_FALSE(ParseVerdictName("", out));
}

TEST(Verdict, PointsGeoMeanSkipsPointsThatDidNotRun) {
  // ours / paper = 2 and 0.5: geometric mean 1; the infeasible point and the paper-less one are skipped.
  const std::vector<ReproPoint> points = {
      {"a", 1.0, 2.0, ""}, {"b", 4.0, 2.0, ""}, {"c", 3.0, 0.0, "out of memory"}, {"d", 0.0, 1.0, ""}};
  EXPECT_NEAR(PointsGeoMeanRatio(points), 1.0, 1e-12);
  EXPECT_EQ(PointsGeoMeanRatio({}), 0);
  EXPECT_NEAR(PointsGeoMeanRatio({{"x", 2.0, 3.0, ""}}), 1.5, 1e-12);
}

}  // namespace
}  // namespace dlsim::repro
