// Scheduling one training step of a 1,024-GPU job (dp 128 x tp 8, or dp 128 x cp 2 x tp 4) with
// each data policy: 128 DP ranks x 8 micro-batches of 8,192 tokens per CP rank, documents from a
// skewed length mix (lognormal body, Pareto tail to 64K).
#include <benchmark/benchmark.h>

#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"

namespace {

using dlsim::data::DataShape;

const char* const kPolicies[] = {"pad", "pack", "padding_free", "chunkflow", "skrull", "wlb", "distca"};

std::vector<int64_t> Documents(int64_t tokens) {
  dlsim::data::LengthSpec spec;
  spec.distribution = "pareto_mix";
  spec.median = 2000;
  spec.sigma = 1.0;
  spec.tail_fraction = 0.02;
  spec.tail_min = 8192;
  spec.tail_alpha = 1.3;
  spec.max_len = 65536;
  auto src = dlsim::data::MakeLengthSource(spec);
  dlsim::Rng rng = dlsim::Rng(7).Stream("data/lengths");
  return dlsim::data::DrawDocuments(**src, rng, tokens, 0);
}

void BM_ScheduleStep(benchmark::State& state) {
  const std::string name = kPolicies[state.range(0)];
  const int cp = static_cast<int>(state.range(1));
  DataShape shape{.dp = 128,
                  .cp = cp,
                  .micro_batch = 1,
                  .micro_batches = 8,
                  .seq_len = 8192 * cp,
                  .max_len = 65536,
                  .chunk_size = 8192 * cp,
                  .token_budget = 65536};
  std::vector<int64_t> docs = Documents(int64_t{128} * 8 * 8192 * cp);
  dlsim::data::DataPolicyRegistry reg("data-policy");
  dlsim::data::RegisterDataPolicies(reg);
  auto policy = std::move(reg.Create(name)).value();
  for (auto _ : state) {
    auto step = policy->Schedule(docs, shape);
    if (!step.ok()) {
      state.SkipWithError(step.error().message.c_str());
      break;
    }
    benchmark::DoNotOptimize(step->computed_tokens);
  }
  state.SetLabel(name + " cp" + std::to_string(cp) + ", " + std::to_string(docs.size()) + " documents");
}
BENCHMARK(BM_ScheduleStep)->ArgsProduct({{0, 1, 2, 3, 4, 5, 6}, {1, 2}})->Unit(benchmark::kMillisecond);

}  // namespace
