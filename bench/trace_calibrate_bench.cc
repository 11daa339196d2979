// `dlsim calibrate --trace` on the shared Llama 3.1 8B H200 trace (3,383 kernels; issue 39's bound: under 5 s
// on 2 cores): reading the gzipped trace, and reading plus fitting every family. Skipped (with the reason)
// where
// ../shared is absent.
#include <benchmark/benchmark.h>

#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/validate/trace_calibrate.h"

namespace {

using namespace dlsim;

const std::string kTrace =
    std::string(DLSIM_SHARED_DIR) + "/data/profiles/h200/traces/llama-3.1-8b_bf16_ckpt_2x4096.kineto.json.gz";

void BM_ReadTrace8B(benchmark::State& state) {
  for (auto _ : state) {
    auto s = io::ReadKinetoTrace(kTrace);
    if (!s.ok()) {
      state.SkipWithError("needs ../shared/data/profiles/h200/traces");
      return;
    }
    benchmark::DoNotOptimize(s->ops.size());
  }
}
BENCHMARK(BM_ReadTrace8B)->Unit(benchmark::kMillisecond);

void BM_CalibrateTrace8B(benchmark::State& state) {
  auto catalogs = io::LoadCatalogs({});
  for (auto _ : state) {
    auto s = io::ReadKinetoTrace(kTrace);
    if (!s.ok() || !catalogs.ok()) {
      state.SkipWithError("needs ../shared/data/profiles/h200/traces");
      return;
    }
    auto gpu = validate::TraceGpu({*s}, catalogs->hardware, "");
    auto r = validate::CalibrateFromTraces({*s}, *catalogs, **gpu);
    benchmark::DoNotOptimize(r.ok());
  }
}
BENCHMARK(BM_CalibrateTrace8B)->Unit(benchmark::kMillisecond);

}  // namespace
