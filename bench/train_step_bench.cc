// One simulated training step, end to end (plan, costs, schedule, event simulation, memory).
//   build/bench/bench_train_step --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/step_model.h"

namespace {

using namespace dlsim;

struct Fixture {
  catalog::Catalogs catalogs = std::move(io::LoadCatalogs({})).value();
  cost::ComputeCalibration compute = std::move(io::LoadDefaultComputeCalibration()).value();
  net::NetworkCalibration network = std::move(io::LoadDefaultNetworkCalibration()).value();
  train::PipelineScheduleRegistry schedules{"pipeline-schedule"};
  Fixture() { train::RegisterPipelineSchedules(schedules); }
};

Fixture& F() {
  static Fixture f;
  return f;
}

void RunStep(benchmark::State& state, const train::TrainOptions& o) {
  auto owned = std::move(train::MakeStepContext(o, F().catalogs.hardware, F().compute, F().network)).value();
  for (auto _ : state) {
    train::StepResult r = train::SimulateTrainingStep(o, owned->ctx, F().schedules, nullptr).value();
    benchmark::DoNotOptimize(r.step_time_s);
  }
}

train::TrainOptions H100(const char* model, int gpus) {
  train::TrainOptions o;
  o.model = **F().catalogs.models.Find(model);
  o.hardware.gpu = "h100-sxm5-80gb";
  o.hardware.node = "dgx-h100";
  o.hardware.gpus = gpus;
  o.hardware.network = "ib-ndr";
  return o;
}

// Llama-3-405B-shaped model on 16,384 H100: TP8 PP16 DP128, seq 8192, 16M tokens per step.
void BM_Llama405B_16k(benchmark::State& state) {
  train::TrainOptions o = H100("llama3.1-405b", 16384);
  o.training.seq_len = 8192;
  o.training.global_batch = 2048;
  o.training.micro_batch = 1;
  o.parallel.tp = 8;
  o.parallel.pp = 16;
  o.parallel.sequence_parallel = true;
  o.parallel.zero = 1;
  RunStep(state, o);
}
BENCHMARK(BM_Llama405B_16k)->Unit(benchmark::kMillisecond);

// GPT-3 175B on 1,024 A100: TP8 PP8 DP16, interleaved x3, batch 1536.
void BM_Gpt3_175B_1024(benchmark::State& state) {
  train::TrainOptions o = H100("gpt3-175b", 1024);
  o.hardware.gpu = "a100-sxm4-80gb";
  o.hardware.node = "dgx-a100";
  o.hardware.network = "ib-hdr";
  o.hardware.nic_gbps = 200;
  o.training.seq_len = 2048;
  o.training.global_batch = 1536;
  o.parallel.tp = 8;
  o.parallel.pp = 8;
  o.parallel.pipeline_schedule = train::PipelineScheduleKind::kInterleaved;
  o.parallel.virtual_stages = 3;
  o.parallel.sequence_parallel = true;
  o.parallel.recompute = train::Recompute::kSelective;
  RunStep(state, o);
}
BENCHMARK(BM_Gpt3_175B_1024)->Unit(benchmark::kMillisecond);

}  // namespace
