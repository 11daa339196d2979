#include "dlsim/train/pipeline_schedule.h"

#include <gtest/gtest.h>

#include <set>

#include "dlsim/train/chain_order.h"

namespace dlsim::train {
namespace {

PipeOrder MakeOrder(const std::string& name, PipeShape shape) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  auto s = reg.Create(name);
  EXPECT_TRUE(s.ok());
  auto o = (*s)->Order(shape);
  EXPECT_TRUE(o.ok()) << o.error().message;
  return *o;
}

std::string Render(const std::vector<PipeTask>& tasks) {
  std::string s;
  for (const auto& t : tasks)
    s += (t.forward ? "F" : "B") + std::to_string(t.micro_batch) + std::to_string(t.chunk) + " ";
  return s;
}

TEST(PipelineScheduleTest, OneFOneBOrder) {
  PipeOrder o = MakeOrder("1f1b", {4, 1, 6});
  EXPECT_EQ(Render(o[0]), "F00 F10 F20 F30 B00 F40 B10 F50 B20 B30 B40 B50 ");
  EXPECT_EQ(Render(o[3]), "F00 B00 F10 B10 F20 B20 F30 B30 F40 B40 F50 B50 ");
}

TEST(ChainOrder, ChainsRunTheirBackwardInReverse) {
  EXPECT_EQ(ChainBackwardOrder({-1, 0, 0, 0, -1, 1, 1}), (std::vector<int>{0, 3, 2, 1, 4, 6, 5}));
  EXPECT_EQ(ChainBackwardOrder({}), std::vector<int>{});
}

// Without chains the chain-aware order is exactly 1F1B (and GPipe).
TEST(ChainOrder, WithoutChainsItIsOneFOneB) {
  for (PipeShape shape : {PipeShape{4, 1, 6}, PipeShape{4, 1, 2}, PipeShape{1, 1, 5}, PipeShape{3, 1, 3}}) {
    std::vector<int> identity(shape.micro_batches);
    for (int i = 0; i < shape.micro_batches; ++i) identity[i] = i;
    auto o = ChainAwareOrder(shape, identity, false);
    ASSERT_TRUE(o.ok());
    EXPECT_EQ(*o, MakeOrder("1f1b", shape));
    auto g = ChainAwareOrder(shape, identity, true);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(*g, MakeOrder("gpipe", shape));
  }
}

// A chain of three chunks (micro-batches 1..3) among standalone ones, 3 stages: the last stage cannot
// run B3 before F3, so it runs F0 B0 F1 F2 F3 B3 B2 B1 F4 B4; every rank runs at least as many
// forwards before each backward as the rank after it (no deadlock), and each forward precedes its
// backward.
TEST(ChainOrder, AChainWaitsForItsLastChunk) {
  const std::vector<int> back = ChainBackwardOrder({-1, 0, 0, 0, -1});
  auto o = ChainAwareOrder({3, 1, 5}, back, false);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(Render((*o)[2]), "F00 B00 F10 F20 F30 B30 B20 B10 F40 B40 ");
  EXPECT_EQ(Render((*o)[0]), "F00 F10 F20 B00 F30 B30 F40 B20 B10 B40 ");
  for (int r = 0; r < 3; ++r) {
    std::set<int> forwarded;
    std::vector<int> backs;
    for (const PipeTask& t : (*o)[r]) {
      if (t.forward) {
        forwarded.insert(t.micro_batch);
      } else {
        EXPECT_TRUE(forwarded.count(t.micro_batch)) << "rank " << r;
        backs.push_back(t.micro_batch);
      }
    }
    EXPECT_EQ(backs, back);
  }
  EXPECT_FALSE(ChainAwareOrder({2, 2, 4}, {0, 1, 2, 3}, false).ok());  // interleaved: not modelled
  EXPECT_FALSE(ChainAwareOrder({2, 1, 3}, {0, 0, 2}, false).ok());     // not a permutation
  EXPECT_FALSE(ChainAwareOrder({2, 1, 0}, {0}, false).ok());           // more backwards than micro-batches
}

TEST(PipelineScheduleTest, GpipeOrder) {
  PipeOrder o = MakeOrder("gpipe", {2, 1, 3});
  EXPECT_EQ(Render(o[1]), "F00 F10 F20 B00 B10 B20 ");
}

// Megatron-LM's interleaved schedule for p=2, v=2, m=4, rank 0: warm-up (p-r-1)*2+(v-1)*p = 4
// forwards: chunk 0 for micro-batches 0,1 then chunk 1 for 0,1.
TEST(PipelineScheduleTest, InterleavedOrderMatchesMegatron) {
  PipeOrder o = MakeOrder("interleaved", {2, 2, 4});
  EXPECT_EQ(Render(o[0]), "F00 F10 F01 F11 F20 B01 F30 B11 F21 B00 F31 B10 B21 B31 B20 B30 ");
  EXPECT_EQ(Render(o[1]), "F00 F10 F01 B01 F11 B11 F20 B00 F30 B10 F21 B21 F31 B31 B20 B30 ");
}

TEST(PipelineScheduleTest, EveryTaskExactlyOnce) {
  for (const char* name : {"gpipe", "1f1b", "interleaved"}) {
    const int v = std::string(name) == "interleaved" ? 3 : 1;
    PipeOrder o = MakeOrder(name, {4, v, 8});
    for (const auto& rank : o) {
      std::set<std::tuple<bool, int, int>> seen;
      for (const auto& t : rank) EXPECT_TRUE(seen.insert({t.forward, t.micro_batch, t.chunk}).second);
      EXPECT_EQ(seen.size(), static_cast<size_t>(2 * 8 * v)) << name;
    }
  }
}

TEST(PipelineScheduleTest, InterleavedNeedsDivisibleMicroBatches) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  auto o = (*reg.Create("interleaved"))->Order({4, 2, 6});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("divisible"), std::string::npos);
}

TEST(PipelineScheduleTest, UnknownScheduleSuggests) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  auto s = reg.Create("1f1");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("did you mean '1f1b'"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::train
