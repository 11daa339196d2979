// Planner throughput: simulated candidates per second on one core, and a whole
// search on one thread, for GPT-3 175B on 1,024 A100
// (data/scenarios/plan_gpt3_175b_1024xa100.yaml).
//   cmake --build build --target bench_plan && build/bench/bench_plan
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/plan/planner.h"

namespace {

using namespace dlsim;

struct Setup {
  catalog::Catalogs catalogs;
  io::PlanScenario scenario;
  cost::ComputeCalibration compute;
  net::NetworkCalibration network;

  Setup() {
    catalogs = std::move(io::LoadCatalogs({})).value();
    scenario = std::move(io::LoadPlanScenarioFile(
                             std::string(DLSIM_DATA_DIR) + "/scenarios/plan_gpt3_175b_1024xa100.yaml",
                             catalogs.hardware, catalogs.models))
                   .value();
    compute = std::move(io::LoadDefaultComputeCalibration()).value();
    network = std::move(io::LoadDefaultNetworkCalibration()).value();
  }
  plan::ContextFactory Factory() {
    return [this] { return train::MakeStepContext(scenario.base, catalogs.hardware, compute, network); };
  }
};

Setup& Shared() {
  static Setup* s = new Setup();
  return *s;
}

// One candidate simulated per iteration, cycling through the pruned space (one
// core).
void BM_SimulateCandidate(benchmark::State& state) {
  Setup& s = Shared();
  auto ctx = std::move(s.Factory()()).value();
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  const plan::MemoryLimits limits{ctx->gpu.hbm_capacity, ctx->ctx.framework_overhead, 0};
  const plan::Enumeration e = plan::EnumerateCandidates(s.scenario.base, s.scenario.options, limits);
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        plan::SimulateCandidate(s.scenario.base, e.candidates[i], ctx->ctx, schedules, limits.Usable()));
    i = (i + 1) % e.candidates.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["candidates"] = static_cast<double>(e.candidates.size());
}
BENCHMARK(BM_SimulateCandidate)->Unit(benchmark::kMicrosecond);

// The whole search (enumeration, pruning, dominance phases, ranking) on one
// thread.
void BM_WholeSearchOneThread(benchmark::State& state) {
  Setup& s = Shared();
  auto backend = plan::MakeThreadBackend(1);
  size_t simulated = 0, covered = 0;
  for (auto _ : state) {
    auto r = plan::RunPlanner(s.scenario.base, s.scenario.options, s.Factory(), *backend, {});
    simulated += r->evaluated.size();
    covered += r->space_size;
  }
  state.counters["simulated/s"] =
      benchmark::Counter(static_cast<double>(simulated), benchmark::Counter::kIsRate);
  state.counters["space/s"] = benchmark::Counter(static_cast<double>(covered), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_WholeSearchOneThread)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
