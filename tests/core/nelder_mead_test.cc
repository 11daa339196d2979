// Nelder-Mead: finds closed-form minima, stops early on the tolerance, and is deterministic.
#include "dlsim/core/nelder_mead.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim {
namespace {

double Bowl(const std::vector<double>& x) { return (x[0] - 3) * (x[0] - 3) + 2 * (x[1] + 1) * (x[1] + 1); }

TEST(NelderMeadTest, FindsTheMinimumOfAQuadratic) {
  const NelderMeadResult r = MinimizeNelderMead(Bowl, {0, 0}, {1, 1}, {.iterations = 200});
  EXPECT_NEAR(r.x[0], 3.0, 1e-4);
  EXPECT_NEAR(r.x[1], -1.0, 1e-4);
  EXPECT_NEAR(r.value, 0.0, 1e-8);
  EXPECT_EQ(r.iterations, 200);
  EXPECT_FALSE(r.converged);
}

TEST(NelderMeadTest, StopsEarlyOnTheTolerance) {
  const NelderMeadResult r =
      MinimizeNelderMead(Bowl, {0, 0}, {1, 1}, {.iterations = 1000, .f_tolerance = 1e-6});
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.iterations, 1000);
  EXPECT_NEAR(r.x[0], 3.0, 1e-2);
  EXPECT_GE(r.evaluations, r.iterations);
}

TEST(NelderMeadTest, TheShortFormIsTheFullRunsBestPoint) {
  const std::vector<double> x = NelderMead(Bowl, {5, 5}, {0.5, 0.5}, 37);
  const NelderMeadResult r = MinimizeNelderMead(Bowl, {5, 5}, {0.5, 0.5}, {.iterations = 37});
  EXPECT_EQ(x, r.x);  // bit-identical
}

}  // namespace
}  // namespace dlsim
