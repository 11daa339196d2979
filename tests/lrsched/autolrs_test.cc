// The real training loop and AutoLRS on it (small sizes, to stay fast).
#include "dlsim/studies/lrsched/autolrs.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim::lrsched {
namespace {

TeacherTask SmallTask() { return MakeTeacherTask({.train = 2048, .validation = 512}); }

TEST(Mlp, TrainingLowersTheValidationLoss) {
  const TeacherTask task = SmallTask();
  Trainer t(task, {});
  const double before = t.ValidationLoss();
  EXPECT_NEAR(before, std::log(8.0), 0.5);  // about uniform over 8 classes at initialisation
  t.Train(500, [](int) { return 0.05; });
  EXPECT_LT(t.ValidationLoss(), before - 0.5);
}

TEST(Mlp, ACopyIsACheckpoint) {
  const TeacherTask task = SmallTask();
  Trainer a(task, {});
  a.Train(50, [](int) { return 0.05; });
  Trainer b = a;
  a.Train(50, [](int) { return 0.05; });
  b.Train(50, [](int) { return 0.05; });
  EXPECT_EQ(a.ValidationLoss(), b.ValidationLoss());
  EXPECT_EQ(a.step(), 100);
}

TEST(Mlp, TooLargeARateDiverges) {
  const TeacherTask task = SmallTask();
  Trainer t(task, {});
  t.Train(200, [](int) { return 50.0; });
  EXPECT_FALSE(t.ValidationLoss() < std::log(8.0));  // NaN or worse than chance
}

TEST(AutoLrs, PicksARateBetweenTheExtremesAndReachesTheTarget) {
  const TeacherTask task = SmallTask();
  AutoLrsOptions o{.lr_min = 1e-4, .lr_max = 10, .tau_prime = 20, .tau = 200, .k = 8, .tau_max = 400};
  const AutoLrsResult r = RunAutoLrs(task, {}, o, /*target=*/1.2, /*max_steps=*/2000, /*eval_every=*/20);
  ASSERT_FALSE(r.stages.empty());
  // Neither the smallest rate (no progress in tau steps) nor the largest (diverges) wins stage 0.
  EXPECT_GT(r.stages[0].lr, 3e-4);
  EXPECT_LT(r.stages[0].lr, 3);
  EXPECT_EQ(r.trial_steps, [&] {
    int s = 0;
    for (const StageRecord& st : r.stages) s += o.k * st.tau_prime;
    return s;
  }());
  ASSERT_TRUE(r.steps_to_target.has_value());
  EXPECT_LE(*r.steps_to_target, 2000);
}

TEST(Schedules, StepDecayAndCosine) {
  EXPECT_DOUBLE_EQ(StepDecayLr(1, 100, 49), 1);
  EXPECT_DOUBLE_EQ(StepDecayLr(1, 100, 50), 0.1);
  EXPECT_DOUBLE_EQ(StepDecayLr(1, 100, 75), 0.01);
  EXPECT_DOUBLE_EQ(CosineLr(2, 100, 0), 2);
  EXPECT_NEAR(CosineLr(2, 100, 50), 1, 1e-12);
  EXPECT_NEAR(CosineLr(2, 100, 100), 0, 1e-12);
}

}  // namespace
}  // namespace dlsim::lrsched
