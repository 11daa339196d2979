// One DeepSeek-V3 training step on 2,048 H100 (pp 16, ep 64, dp 128: edp 2) with data-aware routing:
// every one of the 120 micro-batches draws its tokens per expert shard for each of the 58 MoE layers
// (Zipf skew), the MoE layers are priced at their slowest shard, and the pipeline is simulated.
// Issue 15's aim: at most 50 ms of one core. The balanced-routing step is measured beside it.
//   build/bench/bench_moe_step --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/step_model.h"

namespace {

using namespace dlsim;

constexpr char kScenario[] = R"(
model: {name: deepseek-v3}
hardware: {node: dgx-h100, gpus: 2048}
training: {seq_len: 4096, global_batch: 15360, micro_batch: 1, precision: fp8}
parallel: {tp: 1, pp: 16, ep: 64, zero: 1, recompute: full}
)";

void Step(benchmark::State& state, const std::string& routing) {
  catalog::Catalogs catalogs = std::move(io::LoadCatalogs({})).value();
  const std::string text = kScenario + routing;
  train::TrainOptions o =
      std::move(io::ParseTrainScenario(text, "bench", catalogs.hardware, catalogs.models)).value();
  auto owned = std::move(train::MakeStepContext(o, catalogs)).value();
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  for (auto _ : state) {
    train::StepResult r = train::SimulateTrainingStep(o, owned->ctx, schedules, nullptr).value();
    if (r.step_time_s <= 0) state.SkipWithError(r.reason.c_str());
    benchmark::DoNotOptimize(r.step_time_s);
  }
}

BENCHMARK_CAPTURE(Step, deepseek_v3_2048gpu_zipf, std::string("routing: {skew: zipf, zipf_s: 0.5}\n"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Step, deepseek_v3_2048gpu_balanced, std::string(""))->Unit(benchmark::kMillisecond);

}  // namespace
