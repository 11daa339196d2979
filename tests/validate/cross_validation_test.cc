// Cross-validation of a fit: the fold split, and on a synthetic problem (rows whose measured value
// is a known multiple of a feature, with noise) that cross-validated errors are never below the
// in-sample errors and do not depend on the thread count.
#include "dlsim/validate/cross_validation.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "dlsim/core/rng.h"

namespace dlsim::validate {
namespace {

TEST(AssignFoldsTest, EveryRowIsHeldOutExactlyOnceAndFoldsAreBalanced) {
  std::vector<std::string> labels;
  for (int i = 0; i < 23; ++i) labels.push_back("row " + std::to_string(i));
  const std::vector<int> folds = AssignFolds(labels, 5, 20);
  ASSERT_EQ(folds.size(), labels.size());  // one fold per row: held out exactly once
  std::vector<int> size(5, 0);
  for (int f : folds) {
    ASSERT_GE(f, 0);
    ASSERT_LT(f, 5);
    ++size[f];
  }
  for (int s : size) EXPECT_TRUE(s == 4 || s == 5) << s;
  EXPECT_EQ(folds, AssignFolds(labels, 5, 20));  // deterministic
  EXPECT_NE(folds, AssignFolds(labels, 5, 21));  // the seed matters
}

TEST(AssignFoldsTest, SmallSetsGetOneRowPerFoldAndSameLabelsShareAFold) {
  const std::vector<std::string> a = {"1.7B", "7.5B", "22B", "175B"};
  const std::vector<int> folds = AssignFolds(a, 5, 20);
  EXPECT_EQ(std::set<int>(folds.begin(), folds.end()), (std::set<int>{0, 1, 2, 3}));
  EXPECT_EQ(folds, AssignFolds(a, 5, 20));
}

// Two sets of rows with measured = 2 * feature * (1 + noise); the prediction is x[0] * feature
// (set "a") and x[1] * x[0] * feature (set "b").
FitProblem Synthetic() {
  Rng rng(7);
  std::vector<ValidationSet> sets = {{"a", "t", "", 10, {}}, {"b", "t", "", 10, {}}};
  std::vector<std::vector<double>> feature(2);
  for (size_t s = 0; s < 2; ++s)
    for (int i = 0; i < 9; ++i) {
      const double f = 1 + i;
      feature[s].push_back(f);
      ValidationRow row;
      row.label = "r" + std::to_string(i);
      row.measured = 2 * f * (1 + 0.2 * (rng.NextDouble() - 0.5));
      sets[s].rows.push_back(row);
    }
  FitProblem p;
  p.fit_sets = {"a", "b"};
  p.stage_steps = {{0.5, 0.5}, {0.05, 0.05}};
  p.predict = [sets, feature](const std::vector<double>& x) -> Result<std::vector<ValidationSet>> {
    std::vector<ValidationSet> out = sets;
    for (size_t s = 0; s < out.size(); ++s)
      for (size_t i = 0; i < out[s].rows.size(); ++i)
        out[s].rows[i].predicted = (s == 0 ? 1.0 : x[1]) * x[0] * feature[s][i];
    return out;
  };
  return p;
}

TEST(CrossValidateTest, CrossValidatedErrorIsNotBelowInSample) {
  const FitProblem p = Synthetic();
  const FitResult in_sample = FitOnRows(p, {1.0, 1.0}, {.iterations = 300}, {});
  CrossValidationOptions o;
  o.folds = 3;
  o.kfold_fit = {.iterations = 300, .f_tolerance = 1e-12};
  o.loso_fit = {.iterations = 300};
  o.cold_start = {1.0, 1.0};
  o.threads = 1;
  auto r = CrossValidate(p, in_sample.x, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->sets.size(), 2u);
  EXPECT_EQ(r->fits.size(), 3u + 2u);  // three folds, two sets left out
  double in_sample_sum = 0, kfold = 0;
  for (const auto& s : r->sets) {
    in_sample_sum += s.in_sample_mape;
    kfold += s.kfold_mape;
    EXPECT_EQ(s.folds, 3);
    EXPECT_GE(s.kfold_mape, s.in_sample_mape - 1e-6) << s.name;
    ASSERT_TRUE(s.loso_mape.has_value());
    EXPECT_GE(*s.loso_mape, s.in_sample_mape - 1e-6) << s.name;
  }
  // The noise makes held-out rows strictly worse: the check above is not vacuous.
  EXPECT_GT(kfold, in_sample_sum + 0.1);
}

TEST(CrossValidateTest, SameBitsForAnyThreadCount) {
  const FitProblem p = Synthetic();
  CrossValidationOptions o;
  o.kfold_fit = {.iterations = 40, .f_tolerance = 1e-4};
  o.loso_fit = {.iterations = 40};
  o.cold_start = {1.0, 1.0};
  o.threads = 1;
  auto one = CrossValidate(p, {2.0, 1.0}, o);
  o.threads = 3;
  auto three = CrossValidate(p, {2.0, 1.0}, o);
  ASSERT_TRUE(one.ok() && three.ok());
  ASSERT_EQ(one->sets.size(), three->sets.size());
  for (size_t i = 0; i < one->sets.size(); ++i) {
    EXPECT_EQ(one->sets[i].kfold_mape, three->sets[i].kfold_mape);
    EXPECT_EQ(one->sets[i].loso_mape, three->sets[i].loso_mape);
  }
  for (size_t i = 0; i < one->fits.size(); ++i) EXPECT_EQ(one->fits[i].x, three->fits[i].x);
}

// One parameter whose error has a local minimum at 0 (5%) and the global one at 10 (0%): Nelder-Mead
// from 0 stays in the first basin; the first stage started from the better of {0, 10} finds the second.
TEST(FitOnRowsTest, GridStartsFindTheOtherBasin) {
  FitProblem p;
  p.fit_sets = {"a"};
  p.stage_steps = {{0.5}, {0.05}};
  p.predict = [](const std::vector<double>& x) -> Result<std::vector<ValidationSet>> {
    ValidationSet s{"a", "t", "", 10, {}};
    ValidationRow row;
    row.label = "r";
    row.measured = 1.0;
    const double e = 0.05 + 0.1 * (1 - std::exp(-x[0] * x[0])) - 0.15 * std::exp(-(x[0] - 10) * (x[0] - 10));
    row.predicted = 1.0 + e;
    s.rows.push_back(row);
    return std::vector<ValidationSet>{s};
  };
  const FitResult local = FitOnRows(p, {0.0}, {.iterations = 200}, {});
  EXPECT_NEAR(local.x[0], 0.0, 0.5);
  p.grid_param = 0;
  p.grid_values = {0.0, 10.0};
  const FitResult global = FitOnRows(p, {0.0}, {.iterations = 200}, {});
  EXPECT_NEAR(global.x[0], 10.0, 0.1);
  EXPECT_LT(global.objective, local.objective);
  EXPECT_GE(global.evaluations, 2);  // the scan's two evaluations are counted
}

// loso_sets: only the named sets are left out; the others keep their k-fold figure and get no loso_mape.
TEST(CrossValidateTest, LeavesOutOnlyTheNamedSets) {
  CrossValidationOptions o;
  o.folds = 2;
  o.kfold_fit = {.iterations = 5};
  o.loso_fit = {.iterations = 5};
  o.cold_start = {1.0, 1.0};
  o.loso_sets = {"b"};
  o.threads = 1;
  auto r = CrossValidate(Synthetic(), {2.0, 1.0}, o);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->fits.size(), 2u + 1u);
  EXPECT_EQ(r->fits.back().held_out, "b");
  ASSERT_EQ(r->sets.size(), 2u);
  EXPECT_FALSE(r->sets[0].loso_mape.has_value());
  EXPECT_TRUE(r->sets[1].loso_mape.has_value());
}

TEST(CrossValidateTest, RejectsFewerThanTwoFolds) {
  CrossValidationOptions o;
  o.folds = 1;
  EXPECT_FALSE(CrossValidate(Synthetic(), {2.0, 1.0}, o).ok());
}

TEST(FitObjectiveTest, ASetWithNoSelectedRowIsLeftOut) {
  const FitProblem p = Synthetic();
  auto sets = p.predict({2.0, 1.0});
  ASSERT_TRUE(sets.ok());
  std::vector<std::pair<std::string, double>> mape;
  const double all = FitObjective(*sets, p.fit_sets, {}, &mape);
  ASSERT_EQ(mape.size(), 2u);
  const double without_b = FitObjective(*sets, p.fit_sets, {{"b", std::vector<bool>(9, false)}}, &mape);
  ASSERT_EQ(mape.size(), 1u);
  EXPECT_EQ(mape[0].first, "a");
  EXPECT_DOUBLE_EQ(without_b, (mape[0].second / 10) * (mape[0].second / 10));
  EXPECT_GT(all, 0);
}

}  // namespace
}  // namespace dlsim::validate
