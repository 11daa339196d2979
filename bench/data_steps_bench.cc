// 100 data-aware training steps of a 1,024-GPU job: every step draws its documents, the data
// policy places them on 128 data-parallel replicas (8 micro-batches of 8,192 tokens each),
// every micro-batch is priced from its own contents and every replica is simulated.
// Issue 4's aim: at most 5 s of one core for the 100 steps.
//   build/bench/bench_data_steps --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/step_model.h"

namespace {

using namespace dlsim;

constexpr char kScenario[] = R"(
model: {name: llama3-8b}
hardware: {node: dgx-h100, gpus: 1024}
training: {seq_len: 8192, global_batch: 1024, micro_batch: 1, precision: bf16}
parallel: {tp: 8, pp: 1, cp: 1, sequence_parallel: true, zero: 1, recompute: selective}
data:
  lengths: {distribution: lognormal, median: 1500, sigma: 1.6}
  max_len: 8192
  policy: POLICY
  seed: 7
  steps: 100
)";

void Steps(benchmark::State& state, const std::string& policy) {
  catalog::Catalogs catalogs = std::move(io::LoadCatalogs({})).value();
  std::string text = kScenario;
  text.replace(text.find("POLICY"), 6, policy);
  train::TrainOptions o =
      std::move(io::ParseTrainScenario(text, "bench", catalogs.hardware, catalogs.models)).value();
  auto owned = std::move(train::MakeStepContext(o, catalogs)).value();
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  for (auto _ : state) {
    train::StepResult r = train::SimulateTrainingStep(o, owned->ctx, schedules, nullptr).value();
    if (!r.feasible || !r.data) state.SkipWithError(r.reason.c_str());
    benchmark::DoNotOptimize(r.step_time_s);
  }
}

BENCHMARK_CAPTURE(Steps, pack_1024gpu_100steps, std::string("pack"))->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(Steps, wlb_1024gpu_100steps, std::string("wlb"))->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
