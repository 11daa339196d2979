// The GP Bayesian optimiser and the exponential forecaster of AutoLRS on functions with known
// answers.
#include "dlsim/studies/lrsched/bayes_opt.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/studies/lrsched/forecast.h"

namespace dlsim::lrsched {
namespace {

TEST(GaussianProcess, InterpolatesItsPoints) {
  GaussianProcess1D gp;
  gp.Fit({0.1, 0.5, 0.9}, {3, 1, 2});
  for (auto [x, y] : {std::pair{0.1, 3.0}, {0.5, 1.0}, {0.9, 2.0}}) {
    EXPECT_NEAR(gp.Predict(x).first, y, 1e-3);
    EXPECT_LT(gp.Predict(x).second, 1e-2);
  }
  EXPECT_GT(gp.Predict(0.3).second, gp.Predict(0.5).second);  // uncertain between the points
}

// A smooth 1-D function with its minimum at x = 0.37 (value 0.1) on [-1, 1].
double Bowl(double x) { return (x - 0.37) * (x - 0.37) + 0.1 + 0.05 * std::sin(3 * x); }

TEST(BayesOpt, FindsTheMinimumOfAKnownFunctionInFewEvaluations) {
  // Bowl's true minimiser (0.05 sin(3x) shifts it a little): by a fine scan.
  double x_star = -1, f_star = Bowl(-1);
  for (int i = 0; i <= 200000; ++i)
    if (const double x = -1 + 2.0 * i / 200000; Bowl(x) < f_star) f_star = Bowl(x), x_star = x;
  BayesOpt1D bo({.lo = -1, .hi = 1, .kappa = 2, .seed = 3});
  int evaluations = 0;
  while (evaluations < 10 && std::abs(bo.Best().first - x_star) > 0.02) {
    const double x = bo.Ask();
    bo.Tell(x, Bowl(x));
    ++evaluations;
  }
  EXPECT_LE(evaluations, 10);
  EXPECT_NEAR(bo.Best().first, x_star, 0.02);
  EXPECT_NEAR(bo.Best().second, f_star, 1e-3);
}

TEST(BayesOpt, ExplorationModeSpreadsItsPoints) {
  // kappa = 1e6 (AutoLRS's released setting) picks the least-known point: 10 points over [0, 1]
  // leave no gap wider than 0.2, and the best of them is within a gap of the minimum.
  BayesOpt1D bo({.lo = 0, .hi = 1, .kappa = 1e6, .seed = 1});
  std::vector<double> xs;
  for (int i = 0; i < 10; ++i) {
    const double x = bo.Ask();
    xs.push_back(x);
    bo.Tell(x, (x - 0.7) * (x - 0.7));
  }
  std::sort(xs.begin(), xs.end());
  for (size_t i = 1; i < xs.size(); ++i) EXPECT_LT(xs[i] - xs[i - 1], 0.2);
  EXPECT_LT(xs.front(), 0.2);
  EXPECT_GT(xs.back(), 0.8);
  EXPECT_NEAR(bo.Best().first, 0.7, 0.1);
}

TEST(BayesOpt, DivergedTrialsAreToldAsLarge) {
  BayesOpt1D bo({.lo = 0, .hi = 1});
  bo.Tell(0.2, std::nan(""));
  bo.Tell(0.8, 2);
  EXPECT_DOUBLE_EQ(bo.Best().first, 0.8);
}

TEST(Forecast, FitsAKnownExponential) {
  std::vector<double> x, y;
  for (int i = 0; i < 16; ++i) x.push_back(10.0 * i), y.push_back(1.5 * std::exp(-0.02 * 10 * i) + 0.3);
  const ExpFit f = FitExponential(x, y);
  EXPECT_NEAR(f.a, 1.5, 1e-4);
  EXPECT_NEAR(f.k, 0.02, 1e-6);
  EXPECT_NEAR(f.c, 0.3, 1e-4);
  EXPECT_NEAR(f.At(1000), 0.3 + 1.5 * std::exp(-20.0), 1e-4);  // the forecast far beyond the series
}

TEST(Forecast, TooFewPointsGiveAFlatForecast) {
  const ExpFit f = FitExponential({1, 2}, {4, 2});
  EXPECT_DOUBLE_EQ(f.At(100), 3);
}

}  // namespace
}  // namespace dlsim::lrsched
