// Online GNN inference speed: Helios' simulation (pre-sampling on every arriving edge, the
// subscription pushes, the serving workers' queues) of 10 M edge updates and 1 M 2-hop [10, 5]
// queries on one core (the bound: <= 20 s); the selector of the uGrapher model on R-MAT 16.
//   build/bench/bench_gnn_online --benchmark_filter=Helios
#include <benchmark/benchmark.h>

#include "dlsim/gnn/kernels/schedule_select.h"
#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::gnn {
namespace {

// R-MAT scale 20, edge factor 10: ~10 M distinct edges streamed at 1 M per second (generation not
// timed), 1 M queries at 100 K per second over the same 10 s, 8 machines.
void BM_Helios10MUpdates1MQueries(benchmark::State& state) {
  const EdgeList e = GenerateRmat({.scale = 20, .edge_factor = 10, .seed = 1}).value();
  const std::vector<StreamEdge> stream = ReplayEdges(e, 1e6, 1);
  OnlineServingRegistry reg("online-serving");
  RegisterOnlineServing(reg);
  SampleStoreRegistry stores("online-sampler");
  RegisterSampleStores(stores);
  const auto helios = reg.Create("helios").value();
  OnlineOptions o;
  o.queries = 1'000'000;
  o.query_rate_per_s = 1e5;
  for (auto _ : state) {
    auto r = helios->Run(e.num_nodes, stream, o, stores);
    benchmark::DoNotOptimize(r);
  }
  state.counters["updates"] = static_cast<double>(stream.size());
}
BENCHMARK(BM_Helios10MUpdates1MQueries)->Unit(benchmark::kSecond)->Iterations(1);

// SelectSchedules for SpMM-sum at 16 features on R-MAT scale 16 (1.9 M stored edges) on an A100.
void BM_SelectScheduleRmat16(benchmark::State& state) {
  const GraphProfile g = ProfileGraph(BuildGraph(GenerateRmat({.scale = 16}).value(), {}).value());
  const catalog::Catalogs cat = io::LoadCatalogs({}).value();
  ScheduleFamilyRegistry fam("graph-schedule");
  RegisterScheduleFamilies(fam);
  const GraphLoop loop{.name = "gather-sum", .width = 16, .read_src = true, .to_dst = DstReduce::kSum};
  for (auto _ : state) {
    auto c = SelectSchedules(g, {loop}, fam, *cat.hardware.FindGpu("a100").value(), {});
    benchmark::DoNotOptimize(c);
  }
}
BENCHMARK(BM_SelectScheduleRmat16)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dlsim::gnn
