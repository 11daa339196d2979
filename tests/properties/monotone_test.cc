// Properties the simulators must have whatever the numbers (issue 18): monotone where physics is
// monotone, invariant where nothing should change. Each sweeps one input and checks the order of
// the results, so a model change that breaks the physics fails here even if every calibrated
// number still matches.
#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/serve/simulate.h"
#include "dlsim/train/layout_check.h"
#include "dlsim/train/simulate.h"

namespace dlsim {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *c;
}

train::TrainOptions TwoNodeJob() {
  const char* kScenario =
      "model: {name: llama3-8b}\nhardware: {node: dgx-h100, gpus: 16}\n"
      "training: {seq_len: 4096, global_batch: 64}\nparallel: {tp: 2, sequence_parallel: true}\n";
  return io::ParseTrainScenario(kScenario, "p.yaml", Cat().hardware, Cat().models).value();
}

double StepTime(const train::TrainOptions& o) {
  Result<train::StepResult> r = train::Simulate(o, Cat(), nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r.ok() && r->feasible) << (r.ok() ? r->reason : "");
  return r.ok() ? r->step_time_s : 0;
}

// More network bandwidth never slows a step.
TEST(TrainProperties, MoreNicBandwidthNeverSlowsAStep) {
  train::TrainOptions o = TwoNodeJob();
  double last = 1e30;
  for (double gbps : {25.0, 50.0, 100.0, 200.0, 400.0, 800.0, 1600.0}) {
    o.hardware.nic_gbps = gbps;
    const double t = StepTime(o);
    EXPECT_LE(t, last * (1 + 1e-12)) << gbps << " Gb/s";
    last = t;
  }
}

// More GPUs for the same work (data parallelism, fixed global batch) never makes the job cheaper
// in GPU-seconds: scaling is at best linear.
TEST(TrainProperties, MoreGpusNeverCostFewerGpuSeconds) {
  train::TrainOptions o = TwoNodeJob();
  double last = 0;
  for (int gpus : {8, 16, 32, 64}) {
    o.hardware.gpus = gpus;
    o.parallel.dp = 0;
    o.parallel.dp = train::DataParallelSize(o);
    const double gpu_seconds = StepTime(o) * gpus;
    EXPECT_GE(gpu_seconds, last * (1 - 1e-9)) << gpus << " GPUs";
    last = gpu_seconds;
  }
  EXPECT_GT(last, 0);
}

// A larger global batch never takes less time per step.
TEST(TrainProperties, MoreWorkNeverTakesLess) {
  train::TrainOptions o = TwoNodeJob();
  double last = 0;
  for (int batch : {16, 32, 64, 128, 256}) {
    o.training.global_batch = batch;
    const double t = StepTime(o);
    EXPECT_GE(t, last) << batch;
    last = t;
  }
  EXPECT_GT(last, 0);
}

// A higher arrival rate never raises SLO attainment (same seed, same requests).
TEST(ServeProperties, HigherRateNeverRaisesSloAttainment) {
  serve::ServeOptions o;
  o.name = "p";
  o.model = *Cat().models.Find("llama2-7b").value();
  o.gpu = *Cat().hardware.FindGpu("a100-sxm4-80gb").value();
  o.workload.requests = 400;
  double last = 2;
  for (double rate : {0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
    o.workload.rate = rate;
    Result<serve::ServeResult> r = serve::Simulate(o, Cat(), nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    ASSERT_TRUE(r->feasible) << r->reason;
    EXPECT_LE(r->metrics.slo_attainment, last + 1e-12) << rate << " req/s";
    EXPECT_GE(r->metrics.ttft_s.p50, 0);
    last = r->metrics.slo_attainment;
  }
}

}  // namespace
}  // namespace dlsim
