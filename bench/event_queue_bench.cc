// Throughput of the event queue (see docs/performance.md for the recorded figures).
//   build/bench/bench_event_queue --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "dlsim/core/event_queue.h"
#include "dlsim/core/rng.h"

namespace {

dlsim::Duration RandomDelay(dlsim::Rng& rng) {
  return dlsim::Nanos(static_cast<int64_t>(rng.NextBelow(1000)));
}

// Steady state: a queue holding `depth` events; each step pops one and schedules one at a
// random later time (the hold model of Jones 1986). One item = one pop + one schedule.
void BM_ScheduleAndPop(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  dlsim::EventQueue q;
  dlsim::Rng rng(1);
  int64_t counter = 0;
  for (int i = 0; i < depth; ++i) q.ScheduleAfter(RandomDelay(rng), [&counter] { ++counter; });
  for (auto _ : state) {
    q.Step();
    q.ScheduleAfter(RandomDelay(rng), [&counter] { ++counter; });
  }
  benchmark::DoNotOptimize(counter);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScheduleAndPop)->Arg(16)->Arg(1024)->Arg(65536);

// The hold model with rescheduling, as a resource does when its rate changes. `depth` events
// are pending, one per index; when one fires it schedules its successor (the hold model), and
// each step also moves one pending event chosen at random: cancel, then schedule it again at
// a new random time. The queue carries the stale entries of cancelled events until they reach
// the top. One item = one pop + two schedules + one cancel.
struct RescheduleBench {
  dlsim::EventQueue q;
  dlsim::Rng rng{1};
  std::vector<dlsim::EventId> ids;
  int64_t fired = 0;

  void ScheduleIndex(size_t i) {
    // Captures 16 bytes, so std::function stores it inline (no allocation), as above.
    ids[i] = q.ScheduleAfter(RandomDelay(rng), [this, i] {
      ++fired;
      ScheduleIndex(i);
    });
  }
};

void BM_ScheduleCancelAndPop(benchmark::State& state) {
  const size_t depth = static_cast<size_t>(state.range(0));
  RescheduleBench b;
  b.ids.resize(depth);
  for (size_t i = 0; i < depth; ++i) b.ScheduleIndex(i);
  int64_t cancelled = 0;
  for (auto _ : state) {
    b.q.Step();
    const size_t j = b.rng.NextBelow(depth);
    if (b.q.Cancel(b.ids[j])) ++cancelled;
    b.ScheduleIndex(j);
  }
  benchmark::DoNotOptimize(b.fired);
  if (cancelled != static_cast<int64_t>(state.iterations())) state.SkipWithError("a cancel missed");
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScheduleCancelAndPop)->Arg(16)->Arg(1024)->Arg(65536);

}  // namespace
