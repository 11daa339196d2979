// Speed of the cluster simulator (issue 10's figures; docs/performance.md):
//   - the whole 82,247-job Philly trace on 512 GPUs (data/scenarios/cluster_philly_las.yaml) under
//     FIFO, LAS and Tiresias;
//   - Gavel's synthetic mix, 1,000,000 jobs on a 10,000-GPU cluster (1,250 nodes x 8) at load 0.8,
//     under LAS (5-minute rounds) and FIFO; `_rounds`: deciding only at 300 s rounds (Blox's mode).
//   build/bench/bench_cluster --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// Trace reading is outside the timed loop; one iteration is one whole simulation.
#include <benchmark/benchmark.h>

#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/synthetic.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cluster_scenario.h"

namespace dlsim::cluster {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *c;
}

// `policy` is a registry name, or NAME-rounds for NAME deciding only at 300 s rounds.
void RunPolicy(benchmark::State& state, ClusterOptions o, std::string policy) {
  if (policy.ends_with("-rounds")) {
    policy.resize(policy.size() - 7);
    o.policy_params.rounds_only = true;
    o.policy_params.round = Seconds(300);
  }
  o.policy = policy;
  o.keep_records = false;
  int64_t jobs = 0;
  for (auto _ : state) {
    Result<ClusterResult> r = Simulate(o, Cat(), nullptr);
    if (!r.ok()) return state.SkipWithError(r.error().message.c_str());
    jobs += r->summary.completed;
  }
  state.counters["jobs/s"] = benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsRate);
}

void BM_Philly(benchmark::State& state, const std::string& policy) {
  Result<ClusterOptions> o =
      io::LoadClusterScenarioFile(std::string(DLSIM_DATA_DIR) + "/scenarios/cluster_philly_las.yaml", Cat());
  if (!o.ok()) return state.SkipWithError(o.error().message.c_str());
  RunPolicy(state, std::move(*o), policy);
}
BENCHMARK_CAPTURE(BM_Philly, fifo, std::string("fifo"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Philly, las, std::string("las"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Philly, tiresias, std::string("tiresias"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Philly, las_rounds, std::string("las-rounds"))->Unit(benchmark::kMillisecond);

void BM_Synthetic(benchmark::State& state, const std::string& policy) {
  ClusterOptions o;
  o.cluster.AddNodes("n", "v100", 1250, 8, 0, 0, 0);
  SyntheticOptions s;
  s.jobs = state.range(0);
  s.load = 0.8;
  s.cluster_gpus = o.cluster.total_gpus();
  o.jobs = GenerateGavelMix(s).value();
  o.policy_params.round = Seconds(300);
  RunPolicy(state, std::move(o), policy);
}
BENCHMARK_CAPTURE(BM_Synthetic, fifo, std::string("fifo"))
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Synthetic, las_rounds, std::string("las-rounds"))
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Synthetic, las, std::string("las"))
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace dlsim::cluster
