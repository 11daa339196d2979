// Schedule + pop throughput of the event queue.
//   build/bench/bench_event_queue --benchmark_filter=ScheduleAndPop
#include <benchmark/benchmark.h>

#include "dlsim/core/event_queue.h"
#include "dlsim/core/rng.h"

namespace {

// Steady state: a queue holding `depth` events; each step pops one and schedules one at a
// random later time (the hold model of Jones 1986).
void BM_ScheduleAndPop(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  dlsim::EventQueue q;
  dlsim::Rng rng(1);
  int64_t counter = 0;
  for (int i = 0; i < depth; ++i)
    q.ScheduleAfter(dlsim::Nanos(static_cast<int64_t>(rng.NextBelow(1000))), [&counter] { ++counter; });
  for (auto _ : state) {
    q.Step();
    q.ScheduleAfter(dlsim::Nanos(static_cast<int64_t>(rng.NextBelow(1000))), [&counter] { ++counter; });
  }
  benchmark::DoNotOptimize(counter);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ScheduleAndPop)->Arg(16)->Arg(1024)->Arg(65536);

}  // namespace
