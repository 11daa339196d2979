#include "dlsim/studies/rlhf/fused_pipeline.h"

#include <gtest/gtest.h>

#include <map>
#include <tuple>

namespace dlsim::rlhf {
namespace {

FusedProblem Instance(const FlexFusionParams& f) {
  Result<FusedProblem> p = FlexFusionInstance(f);
  EXPECT_TRUE(p.ok());
  return *p;
}

// The 12 instances of FlexFusion's parallel_driver.cc / get-lower-bound.py.
const FlexFusionParams kInstances[] = {
    {8, 4, 32, 16, 5, 4, 1.95, 2},   {8, 4, 16, 8, 5, 4, 1.95, 2},    {8, 4, 8, 4, 5, 4, 1.95, 2},
    {8, 8, 32, 32, 5, 2, 1.95, 1},   {8, 8, 16, 16, 5, 2, 1.95, 1},   {8, 8, 8, 8, 5, 2, 1.95, 1},
    {16, 8, 64, 32, 2, 2, 1.64, 2},  {16, 8, 32, 16, 2, 2, 1.64, 2},  {16, 8, 16, 8, 2, 2, 1.64, 2},
    {16, 16, 64, 64, 2, 1, 1.64, 1}, {16, 16, 32, 32, 2, 1, 1.64, 1}, {16, 16, 16, 16, 2, 1, 1.64, 1}};

TEST(FusedPipeline, LowerBoundsMatchFlexFusionScript) {
  // The output of get-lower-bound.py (FlexFusion) for the 12 instances.
  const int64_t expected[] = {708, 372, 225, 702, 366, 225, 618, 330, 186, 606, 318, 186};
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(LowerBound(Instance(kInstances[i])), expected[i]) << "instance " << i;
}

TEST(FusedPipeline, OnePipelineOneFOneBIsClosedForm) {
  FusedProblem p{4, {{"a", 0, {0, 1, 2, 3}, 8, 3, 6, 1.0}}};
  const std::optional<ScheduleCost> c = Evaluate(p, SequentialOneFOneB(p));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->makespan, (8 + 4 - 1) * 9);  // (m + S - 1)(f + b)
  EXPECT_DOUBLE_EQ(c->peak_memory, 4.0);    // stage 0 holds S micro-batches under 1F1B
  EXPECT_EQ(LowerBound(p), c->makespan);
}

TEST(FusedPipeline, SequentialBaselineSumsTheModels) {
  const FusedProblem p = Instance(kInstances[0]);
  // Actor (32 + 8 - 1) * 15, then the critic replicas together (16 + 4 - 1) * 12.
  EXPECT_EQ(SequentialMakespan(p), 39 * 15 + 19 * 12);
  const std::optional<ScheduleCost> fused_order = Evaluate(p, SequentialOneFOneB(p));
  ASSERT_TRUE(fused_order);
  EXPECT_LE(fused_order->makespan, SequentialMakespan(p));  // no barrier: a little overlap
  EXPECT_GE(fused_order->makespan, LowerBound(p));
}

TEST(FusedPipeline, TraceRespectsDependenciesAndNodes) {
  const FusedProblem p = Instance({4, 2, 4, 2, 2, 1, 1.0, 1.0});
  std::vector<TaskTiming> trace;
  const std::optional<ScheduleCost> c = Evaluate(p, SequentialOneFOneB(p), &trace);
  ASSERT_TRUE(c);
  std::map<std::tuple<int, int, int>, TaskTiming> at;
  for (const TaskTiming& t : trace) at[{t.pipeline, t.slot, t.micro_batch}] = t;
  EXPECT_EQ(at.size(), trace.size());
  for (const TaskTiming& t : trace) {
    if (t.slot > 0) {
      EXPECT_GE(t.start, at.at({t.pipeline, t.slot - 1, t.micro_batch}).end);
    }
  }
  std::map<int, int64_t> node_free;
  for (const TaskTiming& t : trace) {  // per node in execution order: no overlap
    EXPECT_GE(t.start, node_free[t.node]);
    node_free[t.node] = t.end;
  }
}

TEST(FusedPipeline, InvalidSchedulesDoNotRun) {
  const FusedProblem p{2, {{"a", 0, {0, 1}, 1, 1, 2, 1.0}}};
  Schedule backward_first{{{{0, false}, {0, true}}, {{0, true}, {0, false}}}};
  EXPECT_FALSE(Evaluate(p, backward_first));  // deadlock
  Schedule missing{{{{0, true}}, {{0, true}, {0, false}}}};
  EXPECT_FALSE(Evaluate(p, missing));
  Schedule foreign{{{{1, true}, {0, false}}, {{0, true}, {0, false}}}};
  EXPECT_FALSE(Evaluate(p, foreign));
}

TEST(FusedPipeline, BadProblemsAreErrors) {
  EXPECT_FALSE(FlexFusionInstance({8, 3, 4, 4, 1, 1, 1, 1}).ok());  // 3 does not divide 8
  EXPECT_FALSE(FlexFusionInstance({8, 4, 0, 4, 1, 1, 1, 1}).ok());
  EXPECT_FALSE(Validate({2, {{"a", 0, {0, 0}, 1, 1, 2, 1.0}}}).ok());
  EXPECT_FALSE(Validate({2, {{"a", 0, {0, 2}, 1, 1, 2, 1.0}}}).ok());
  EXPECT_FALSE(Validate({2, {}}).ok());
  EXPECT_TRUE(Validate(Instance(kInstances[6])).ok());
}

}  // namespace
}  // namespace dlsim::rlhf
