// Simulated requests per second of the serving simulator: Llama-2-7B on one A100-80GB with vLLM
// batching at 4 req/s (data/scenarios/serve_llama2_7b_a100_vllm.yaml, built by hand).
//   build/bench/bench_serve --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/serve/setup.h"

namespace dlsim::serve {
namespace {

void BM_ServeLlama2_7bVllm(benchmark::State& state) {
  auto catalogs = io::LoadCatalogs({});
  auto env = MakeServeEnvironment(io::LoadDefaultComputeCalibration().value(),
                                  io::LoadDefaultNetworkCalibration().value());
  if (!catalogs.ok() || !env.ok()) {
    state.SkipWithError("cannot load catalogs or calibration");
    return;
  }
  ServeOptions o;
  o.name = "bench";
  o.model = *catalogs->models.Find("llama2-7b").value();
  o.gpu = *catalogs->hardware.FindGpu("a100-sxm4-80gb").value();
  o.workload.rate = 4.0;
  o.workload.requests = state.range(0);
  o.workload.prompt.max = 3072;
  o.workload.output.max = 1024;
  o.workload.seed = 3;
  auto cost = MakeCostModel(o, **env);
  int64_t done = 0;
  for (auto _ : state) {
    auto r = Simulate(o, **cost, (*env)->schedulers, (*env)->routers);
    if (!r.ok()) {
      state.SkipWithError(r.error().message.c_str());
      return;
    }
    done += r->metrics.requests_completed;
  }
  state.counters["requests_per_s"] =
      benchmark::Counter(static_cast<double>(done), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ServeLlama2_7bVllm)->Arg(20000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dlsim::serve
