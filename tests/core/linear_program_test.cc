// LinearProgram (GLPK) on closed-form programs, integer programs against brute force, infeasible and
// unbounded ones, and malformed input.
#include "dlsim/core/linear_program.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace dlsim {
namespace {

TEST(LinearProgram, HeaderExample) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, 4, 1.0), y = lp.AddVariable(0, kLpInfinity, 2.0);
  lp.AddRow({{x, 1}, {y, 1}}, -kLpInfinity, 3);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->objective, 6);
  EXPECT_DOUBLE_EQ(s->x[x], 0);
  EXPECT_DOUBLE_EQ(s->x[y], 3);
}

// max 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18: the textbook optimum 36 at (2, 6).
TEST(LinearProgram, TextbookOptimum) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, kLpInfinity, 3), y = lp.AddVariable(0, kLpInfinity, 5);
  lp.AddRow({{x, 1}}, -kLpInfinity, 4);
  lp.AddRow({{y, 2}}, -kLpInfinity, 12);
  lp.AddRow({{x, 3}, {y, 2}}, -kLpInfinity, 18);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->objective, 36, 1e-9);
  EXPECT_NEAR(s->x[x], 2, 1e-9);
  EXPECT_NEAR(s->x[y], 6, 1e-9);
}

// max z s.t. z <= x, z <= 2y, x + y = 3 (an equality row, a free z): x = 2, y = 1, z = 2.
TEST(LinearProgram, MaxMinWithEqualityRowAndFreeVariable) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, kLpInfinity, 0), y = lp.AddVariable(0, kLpInfinity, 0);
  const int z = lp.AddVariable(-kLpInfinity, kLpInfinity, 1);
  lp.AddRow({{x, 1}, {z, -1}}, 0, kLpInfinity);
  lp.AddRow({{y, 2}, {z, -1}}, 0, kLpInfinity);
  lp.AddRow({{x, 1}, {y, 1}}, 3, 3);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_TRUE(s.ok());
  EXPECT_NEAR(s->x[z], 2, 1e-9);
  EXPECT_NEAR(s->x[x], 2, 1e-9);
  EXPECT_NEAR(s->x[y], 1, 1e-9);
}

// A 0/1 knapsack of 12 items against the brute force over all 4,096 subsets; the LP relaxation's
// optimum is fractional here, so the integer search has work to do.
TEST(LinearProgram, IntegerKnapsackMatchesBruteForce) {
  const double value[] = {13, 7, 24, 9, 15, 3, 18, 11, 6, 21, 8, 14};
  const double weight[] = {5, 3, 9, 4, 6, 1, 7, 5, 3, 8, 4, 6};
  const double capacity = 23;
  LinearProgram lp;
  std::vector<std::pair<int, double>> row;
  for (int i = 0; i < 12; ++i) row.push_back({lp.AddVariable(0, 1, value[i], /*integer=*/true), weight[i]});
  lp.AddRow(row, -kLpInfinity, capacity);
  ASSERT_TRUE(lp.has_integers());
  double best = 0;
  for (int mask = 0; mask < (1 << 12); ++mask) {
    double v = 0, w = 0;
    for (int i = 0; i < 12; ++i) {
      if (mask >> i & 1) v += value[i], w += weight[i];
    }
    if (w <= capacity) best = std::max(best, v);
  }
  Result<LpSolution> s = lp.Maximize();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->objective, best);
  double v = 0, w = 0;
  for (int i = 0; i < 12; ++i) {
    EXPECT_TRUE(s->x[i] == 0 || s->x[i] == 1) << s->x[i];
    v += value[i] * s->x[i], w += weight[i] * s->x[i];
  }
  EXPECT_DOUBLE_EQ(v, best);
  EXPECT_LE(w, capacity);
}

// min x + y with integer x, y >= 0 and 2x + 2y >= 3: the relaxation gives 1.5, the integers 2.
TEST(LinearProgram, MinimizeRoundsUpAcrossTheRelaxation) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, kLpInfinity, 1, true), y = lp.AddVariable(0, kLpInfinity, 1, true);
  lp.AddRow({{x, 2}, {y, 2}}, 3, kLpInfinity);
  Result<LpSolution> s = lp.Minimize();
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_DOUBLE_EQ(s->objective, 2);
  LinearProgram relaxed;
  const int a = relaxed.AddVariable(0, kLpInfinity, 1), b = relaxed.AddVariable(0, kLpInfinity, 1);
  relaxed.AddRow({{a, 2}, {b, 2}}, 3, kLpInfinity);
  EXPECT_NEAR(relaxed.Minimize()->objective, 1.5, 1e-9);
}

// An integer in [0.2, 0.8] does not exist although the relaxation is feasible.
TEST(LinearProgram, NoIntegerPointIsInfeasible) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, 1, 1, true);
  lp.AddRow({{x, 1}}, 0.2, 0.8);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInfeasible);
}

TEST(LinearProgram, InfeasibleIsReported) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, 1, 1);
  lp.AddRow({{x, 1}}, 2, kLpInfinity);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInfeasible);
}

TEST(LinearProgram, UnboundedIsAnError) {
  LinearProgram lp;
  const int x = lp.AddVariable(0, kLpInfinity, 1), y = lp.AddVariable(0, kLpInfinity, 0);
  lp.AddRow({{x, 1}, {y, -1}}, -kLpInfinity, 1);
  Result<LpSolution> s = lp.Maximize();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kInternal);
}

TEST(LinearProgram, MalformedInputIsAnErrorNotAnAbort) {
  {
    LinearProgram lp;
    lp.AddVariable(2, 1, 1);  // empty bounds
    EXPECT_EQ(lp.Maximize().error().code, ErrorCode::kInvalidArgument);
  }
  {
    LinearProgram lp;
    lp.AddVariable(0, 1, 1);
    lp.AddRow({{3, 1}}, 0, 1);  // unknown variable
    EXPECT_EQ(lp.Maximize().error().code, ErrorCode::kInvalidArgument);
  }
  {
    LinearProgram lp;
    const int x = lp.AddVariable(0, 1, 1);
    lp.AddRow({{x, 1}, {x, 2}}, 0, 1);  // repeated variable
    EXPECT_EQ(lp.Maximize().error().code, ErrorCode::kInvalidArgument);
  }
  {
    LinearProgram lp;
    lp.AddVariable(0, 1, std::nan(""));
    EXPECT_EQ(lp.Maximize().error().code, ErrorCode::kInvalidArgument);
  }
  EXPECT_EQ(LinearProgram().Maximize().error().code, ErrorCode::kInvalidArgument);
}

TEST(LinearProgram, SameProgramSameBits) {
  LinearProgram lp;
  std::vector<int> v;
  for (int i = 0; i < 40; ++i) v.push_back(lp.AddVariable(0, 1, 1.0 + (i * 7 % 11) / 10.0));
  for (int r = 0; r < 10; ++r) {
    std::vector<std::pair<int, double>> terms;
    for (int i = r; i < 40; i += 3) terms.push_back({v[i], 1.0 + (i * r % 5)});
    lp.AddRow(terms, -kLpInfinity, 2.5 + r);
  }
  Result<LpSolution> a = lp.Maximize(), b = lp.Maximize();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->objective, b->objective);
  EXPECT_EQ(a->x, b->x);
}

}  // namespace
}  // namespace dlsim
