// The pipeline on closed-form cases: equal batches take fill + (B - 1) x the slowest stage.
#include "dlsim/gnn/pipeline.h"

#include <gtest/gtest.h>

#include "dlsim/report/recording_sink.h"

namespace dlsim::gnn {
namespace {

StageTimes Constant(const std::vector<double>& ms, size_t batches) {
  StageTimes st;
  const char* names[] = {"sample", "gather", "copy", "compute"};
  for (size_t s = 0; s < ms.size(); ++s)
    st.push_back({names[s], std::vector<Duration>(batches, Millis(ms[s]))});
  return st;
}

TEST(PipelineTest, EqualBatchesFollowTheClosedForm) {
  const PipelineTiming p = RunPipeline(Constant({3, 5, 2, 4}, 10), true);
  EXPECT_EQ(p.fill, Millis(3 + 5 + 2 + 4));
  EXPECT_EQ(p.makespan, Millis(14 + 9 * 5));  // fill + (B - 1) x slowest stage
  EXPECT_EQ(p.bottleneck, 1u);
  EXPECT_EQ(p.busy[3], Millis(40));
  EXPECT_DOUBLE_EQ(p.utilisation[1], 50.0 / 59);
}

TEST(PipelineTest, UnpipelinedIsTheSumOfEverything) {
  const PipelineTiming p = RunPipeline(Constant({3, 5, 2, 4}, 10), false);
  EXPECT_EQ(p.makespan, Millis(140));
}

TEST(PipelineTest, UnequalBatchesByHand) {
  // Stage A: 1, 4; stage B: 3, 1 (ms). Batch 0 leaves A at 1, B at 4; batch 1 leaves A at 5, B at 6.
  StageTimes st = {{"a", {Millis(1), Millis(4)}}, {"b", {Millis(3), Millis(1)}}};
  const PipelineTiming p = RunPipeline(st, true);
  EXPECT_EQ(p.makespan, Millis(6));
  EXPECT_EQ(p.fill, Millis(4));
  EXPECT_EQ(p.bottleneck, 0u);  // 5 ms busy against 4
}

TEST(PipelineTest, SinkGetsATrackPerStageAndASpanPerBatch) {
  report::RecordingSink sink;
  ASSERT_TRUE(sink.Begin({"t"}).ok());
  RunPipeline(Constant({1, 2}, 3), true, &sink);
  ASSERT_TRUE(sink.Finish().ok());
  EXPECT_EQ(sink.thread_names().size(), 2u);
  ASSERT_EQ(sink.spans().size(), 6u);
  // Batch 2 on stage 1 waits for batch 1 there: it starts at 1 + 2 + 2 = 5 ms.
  EXPECT_EQ(sink.spans().back().start, TimePoint::Start() + Millis(5));
}

}  // namespace
}  // namespace dlsim::gnn
