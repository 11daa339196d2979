#include "dlsim/core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "dlsim/core/rng.h"

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

// Regression guard for the heap implementation (4-ary, tournament over children): events at
// random times with many ties, some cancelled, fire in exactly (time, scheduling order).
TEST(EventQueueTest, RandomScheduleAndCancelMatchesSortedOrder) {
  struct Planned {
    int64_t time;
    int id;
  };
  Rng rng(7);
  EventQueue q;
  std::vector<Planned> expected;
  std::vector<int> fired;
  std::vector<std::pair<EventId, Planned>> live;
  int next_id = 0;
  const auto schedule = [&](int64_t at) {
    Planned p{at, next_id++};
    live.push_back({q.Schedule(At(at), [&fired, p] { fired.push_back(p.id); }), p});
  };
  for (int i = 0; i < 5000; ++i) schedule(static_cast<int64_t>(rng.NextBelow(200)));  // many ties
  for (int i = 0; i < 1500; ++i) {
    size_t k = rng.NextBelow(live.size());
    ASSERT_TRUE(q.Cancel(live[k].first));
    live[k] = live.back();
    live.pop_back();
  }
  for (const auto& [id, p] : live) expected.push_back(p);
  // Ids grow in scheduling order, so (time, id) is the order the queue must follow.
  std::sort(expected.begin(), expected.end(), [](const Planned& a, const Planned& b) {
    return a.time != b.time ? a.time < b.time : a.id < b.id;
  });
  EXPECT_EQ(q.pending(), expected.size());
  q.Run();
  ASSERT_EQ(fired.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(fired[i], expected[i].id) << "position " << i;
}

// Cancelling most events compacts the heap (dead entries dropped, slots reused): the survivors
// and the events scheduled after it still fire in (time, scheduling order), and a cancelled id
// stays cancelled even once its slot serves another event.
TEST(EventQueueTest, CompactionKeepsOrderAndIds) {
  Rng rng(13);
  EventQueue q;
  std::vector<std::pair<int64_t, int>> expected;  // (time, id) of the live events
  std::vector<int> fired;
  std::vector<std::pair<EventId, std::pair<int64_t, int>>> live;
  std::vector<EventId> cancelled;
  int next_id = 0;
  const auto schedule = [&](int64_t at) {
    const int id = next_id++;
    live.push_back({q.Schedule(At(at), [&fired, id] { fired.push_back(id); }), {at, id}});
  };
  const auto cancel_some = [&](int count) {
    for (int i = 0; i < count; ++i) {
      const size_t k = rng.NextBelow(live.size());
      ASSERT_TRUE(q.Cancel(live[k].first));
      cancelled.push_back(live[k].first);
      live[k] = live.back();
      live.pop_back();
    }
  };
  for (int i = 0; i < 6000; ++i) schedule(static_cast<int64_t>(rng.NextBelow(300)));
  cancel_some(5500);  // the heap compacts on the way
  for (int i = 0; i < 3000; ++i) schedule(static_cast<int64_t>(rng.NextBelow(300)));  // reuses slots
  cancel_some(2000);
  for (const EventId& id : cancelled) ASSERT_FALSE(q.Cancel(id));
  for (const auto& [id, p] : live) expected.push_back(p);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(q.pending(), expected.size());
  q.Run();
  ASSERT_EQ(fired.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(fired[i], expected[i].second) << "position " << i;
}

TEST(EventQueueTest, InterleavedPushPopKeepsOrder) {
  Rng rng(11);
  EventQueue q;
  std::vector<int64_t> times;
  int64_t last = -1;
  bool ordered = true;
  std::function<void()> hold = [&] {
    const int64_t now = q.Now().ToNanos();
    ordered = ordered && now >= last;
    last = now;
    times.push_back(now);
    if (times.size() < 20000) q.ScheduleAfter(Nanos(static_cast<int64_t>(rng.NextBelow(1000))), hold);
  };
  for (int i = 0; i < 1000; ++i) q.Schedule(At(static_cast<int64_t>(rng.NextBelow(1000))), hold);
  q.Run();
  EXPECT_TRUE(ordered);
  EXPECT_EQ(q.executed(), times.size());
  EXPECT_GE(times.size(), 20000u);
}

}  // namespace
}  // namespace dlsim
