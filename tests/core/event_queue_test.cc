#include "dlsim/core/event_queue.h"

#include <gtest/gtest.h>

#include <vector>

namespace dlsim {
namespace {

TimePoint At(int64_t ns) { return TimePoint::FromNanos(ns); }

TEST(EventQueueTest, FiresInTimeOrder) {
  EventQueue q;
  std::vector<int> order;
  q.Schedule(At(30), [&] { order.push_back(3); });
  q.Schedule(At(10), [&] { order.push_back(1); });
  q.Schedule(At(20), [&] { order.push_back(2); });
  q.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(q.Now().ToNanos(), 30);
  EXPECT_EQ(q.executed(), 3u);
}

TEST(EventQueueTest, TiesAreFifo) {
  EventQueue q;
  std::vector<int> order;
  for (int i = 0; i < 100; ++i) q.Schedule(At(5), [&, i] { order.push_back(i); });
  q.Run();
  ASSERT_EQ(order.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(order[i], i);
}

TEST(EventQueueTest, CancelSkipsEvent) {
  EventQueue q;
  std::vector<int> order;
  q.Schedule(At(1), [&] { order.push_back(1); });
  EventId id = q.Schedule(At(2), [&] { order.push_back(2); });
  q.Schedule(At(3), [&] { order.push_back(3); });
  EXPECT_TRUE(q.Cancel(id));
  EXPECT_FALSE(q.Cancel(id));  // twice
  EXPECT_EQ(q.pending(), 2u);
  q.Run();
  EXPECT_EQ(order, (std::vector<int>{1, 3}));
}

TEST(EventQueueTest, CancelAfterFireFails) {
  EventQueue q;
  EventId id = q.Schedule(At(1), [] {});
  q.Run();
  EXPECT_FALSE(q.Cancel(id));
  EXPECT_FALSE(q.Cancel(EventId{}));
}

TEST(EventQueueTest, SlotReuseDoesNotConfuseCancel) {
  EventQueue q;
  int fired = 0;
  EventId a = q.Schedule(At(1), [&] { ++fired; });
  q.Run();
  EventId b = q.Schedule(At(2), [&] { ++fired; });  // may reuse a's slot
  EXPECT_FALSE(q.Cancel(a));
  q.Run();
  EXPECT_EQ(fired, 2);
  (void)b;
}

TEST(EventQueueTest, EventsScheduleEvents) {
  EventQueue q;
  std::vector<int64_t> times;
  std::function<void()> tick = [&] {
    times.push_back(q.Now().ToNanos());
    if (times.size() < 4) q.ScheduleAfter(Nanos(10), tick);
  };
  q.Schedule(At(0), tick);
  q.Run();
  EXPECT_EQ(times, (std::vector<int64_t>{0, 10, 20, 30}));
}

TEST(EventQueueTest, NextTimeIsNulloptWhenEmpty) {
  EventQueue q;
  EXPECT_FALSE(q.NextTime().has_value());
  EventId id = q.Schedule(At(7), [] {});
  EXPECT_EQ(q.NextTime()->ToNanos(), 7);
  q.Cancel(id);
  EXPECT_FALSE(q.NextTime().has_value());
  EXPECT_FALSE(q.Step());
}

TEST(EventQueueTest, RunUntilStopsAtBoundary) {
  EventQueue q;
  int fired = 0;
  q.Schedule(At(10), [&] { ++fired; });
  q.Schedule(At(20), [&] { ++fired; });
  q.RunUntil(At(15));
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(q.Now().ToNanos(), 15);
  q.RunUntil(At(20));
  EXPECT_EQ(fired, 2);
}

}  // namespace
}  // namespace dlsim
