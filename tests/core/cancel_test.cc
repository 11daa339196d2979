// Cooperative cancellation (core/cancel.h): the loops that poll it stop, and the request stays until cleared.
#include "dlsim/core/cancel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <vector>

#include "dlsim/core/event_queue.h"
#include "dlsim/core/nelder_mead.h"
#include "dlsim/core/parallel_for.h"

namespace dlsim {
namespace {

TEST(Cancel, ParallelForTakesNoBlockAfterTheRequest) {
  ClearCancel();
  std::vector<int> ran(100, 0);
  ParallelFor(100, 1, 1,
              [&](size_t i, int) {
                ran[i] = 1;
                if (i == 3) RequestCancel();
              },
              {});
  EXPECT_TRUE(CancelRequested());
  EXPECT_EQ(std::count(ran.begin(), ran.end(), 1), 4);  // 0..3: the block in hand finished, no other began
  ClearCancel();
  EXPECT_FALSE(CancelRequested());
  std::fill(ran.begin(), ran.end(), 0);
  ParallelFor(100, 2, [&](size_t i) { ran[i] = 1; });
  EXPECT_EQ(std::count(ran.begin(), ran.end(), 1), 100);  // cleared: every index again
}

TEST(Cancel, AnEventLoopStopsAtItsNextLookAfterTheRequest) {
  ClearCancel();
  EventQueue q;
  uint64_t fired = 0;
  std::function<void()> tick = [&] {
    if (++fired == 100) RequestCancel();
    q.ScheduleAfter(Duration::FromSeconds(1e-6), tick);  // endless without cancellation
  };
  q.ScheduleAfter(Duration::Zero(), tick);
  EXPECT_FALSE(q.RunCancellable());
  EXPECT_EQ(fired, kCancelPollEvents);  // the first look after the request
  ClearCancel();
  int left = 10;
  EventQueue finite;
  std::function<void()> count = [&] {
    if (--left > 0) finite.ScheduleAfter(Duration::Zero(), count);
  };
  finite.ScheduleAfter(Duration::Zero(), count);
  EXPECT_TRUE(finite.RunCancellable([&] { return left > 5; }));  // stopped by its own predicate
  EXPECT_EQ(left, 5);
}

TEST(Cancel, NelderMeadStopsWithItsBestVertex) {
  ClearCancel();
  auto f = [](const std::vector<double>& x) { return (x[0] - 3) * (x[0] - 3); };
  RequestCancel();
  const NelderMeadResult stopped = MinimizeNelderMead(f, {0.0}, {1.0}, {.iterations = 100});
  ClearCancel();
  EXPECT_EQ(stopped.iterations, 0);
  EXPECT_DOUBLE_EQ(stopped.value, 4.0);  // the better of the two start vertices, 0 and 1
  EXPECT_NEAR(MinimizeNelderMead(f, {0.0}, {1.0}, {.iterations = 100}).x[0], 3.0, 1e-3);
  EXPECT_EQ(CancelledError().code, ErrorCode::kCancelled);
}

}  // namespace
}  // namespace dlsim
