#include "dlsim/studies/rlhf/rollout.h"

#include <gtest/gtest.h>

namespace dlsim::rlhf {
namespace {

// Decode 1 s per iteration whatever the batch; prefill free; inference 0.01 s per token.
const ConstantRolloutCost kFlat(1.0, 0.0, 0.0, 0.01, 0.0);

TEST(Rollout, BaselineIsTheLongestOutputThenInferenceOnAll) {
  // 4 instances, 8 samples; instance 0 gets outputs 10 and 100.
  RolloutOptions o{4, 10, {10, 20, 20, 20, 100, 20, 20, 20}, 0, 64};
  Result<RolloutResult> r = SimulateRollout(o, kFlat);
  ASSERT_TRUE(r.ok());
  EXPECT_DOUBLE_EQ(r->generation_end_s, 100.0);
  const double work = 0.01 * (8 * 10 + 10 + 100 + 6 * 20);
  EXPECT_DOUBLE_EQ(r->inference_s, work);
  EXPECT_DOUBLE_EQ(r->end_s, 100.0 + work / 4);
  EXPECT_EQ(r->migrated_samples, 0);
}

TEST(Rollout, MigrationFreesInstancesForInference) {
  // One long sample: at threshold 1/8 it moves alone to one tail instance, the three others infer.
  RolloutOptions o{4, 10, {10, 20, 20, 20, 100, 20, 20, 20}, 0.125, 64};
  Result<RolloutResult> r = SimulateRollout(o, kFlat);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->migrated_samples, 1);
  EXPECT_EQ(r->tail_instances, 1);
  EXPECT_DOUBLE_EQ(r->migrate_at_s, 20.0);       // the 7th sample finishes at 20
  EXPECT_DOUBLE_EQ(r->generation_end_s, 100.0);  // same decode speed, no copy cost
  // Work of the 7 early samples (0.01 * (20 + 6 * 30) = 2.0) drains on 3 instances by 20 + 2/3;
  // the long sample's 1.1 s arrives at 100 and is served by all 4.
  EXPECT_NEAR(r->end_s, 100.0 + 1.1 / 4, 1e-9);
  RolloutOptions base = o;
  base.migration_threshold = 0;
  EXPECT_LT(r->end_s, SimulateRollout(base, kFlat)->end_s);
}

TEST(Rollout, TailDecodesFasterWhenBatchCostMatters) {
  // Decode cost grows with the batch: the consolidated tail is no slower than before.
  const ConstantRolloutCost cost(1.0, 0.1, 0.0, 0.0, 0.001);
  RolloutOptions o{2, 10, {5, 5, 5, 5, 50, 5}, 0.2, 8};
  Result<RolloutResult> r = SimulateRollout(o, cost);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->migrated_samples, 1);
  EXPECT_GT(r->migration_s, 0);
  EXPECT_NEAR(r->migration_s, (10 + 5) * 0.001, 1e-12);  // prompt + 5 generated tokens copied
}

TEST(Rollout, ThresholdChoiceIsTheBestCandidate) {
  RolloutOptions o{4, 10, {10, 20, 20, 20, 100, 20, 20, 20}, 0, 64};
  Result<double> t = ChooseMigrationThreshold(o, kFlat, {0.0, 0.125, 0.5});
  ASSERT_TRUE(t.ok());
  for (double c : {0.0, 0.125, 0.5}) {
    RolloutOptions x = o;
    x.migration_threshold = c;
    RolloutOptions chosen = o;
    chosen.migration_threshold = *t;
    EXPECT_LE(SimulateRollout(chosen, kFlat)->end_s, SimulateRollout(x, kFlat)->end_s);
  }
}

TEST(Rollout, BadOptionsAreErrors) {
  EXPECT_FALSE(SimulateRollout({0, 10, {1}, 0, 1}, kFlat).ok());
  EXPECT_FALSE(SimulateRollout({1, 10, {}, 0, 1}, kFlat).ok());
  EXPECT_FALSE(SimulateRollout({1, 10, {0}, 0, 1}, kFlat).ok());
  EXPECT_FALSE(SimulateRollout({1, 10, {1}, 1.0, 1}, kFlat).ok());
  EXPECT_FALSE(SimulateRollout({1, 10, {1}, 0, 0}, kFlat).ok());
  EXPECT_FALSE(ChooseMigrationThreshold({1, 10, {1}, 0, 1}, kFlat, {}).ok());
}

}  // namespace
}  // namespace dlsim::rlhf
