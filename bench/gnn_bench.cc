// GNN data pipeline speed: sampled edges per second of uniform neighbour sampling (GraphSAGE
// [25, 10], batches of 1024 shuffled seeds) on Graph500 R-MAT graphs, one core; and a whole simulated
// epoch (sampling + FIFO cache + pipeline) of the largest shared real graph, when ../shared is there.
//   build/bench/bench_gnn --benchmark_filter=Sampling --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true   (one command)
#include <benchmark/benchmark.h>

#include <filesystem>
#include <map>
#include <memory>

#include "dlsim/gnn/rmat.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/simulate.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/edge_list.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::gnn {
namespace {

// One graph per scale, built on first use (generation and CSR are not timed).
const Graph& RmatGraph(int scale) {
  static std::map<int, std::unique_ptr<Graph>> graphs;
  auto& g = graphs[scale];
  if (!g)
    g = std::make_unique<Graph>(BuildGraph(GenerateRmat({.scale = scale, .seed = 1}).value(), {}).value());
  return *g;
}

void BM_UniformSampling(benchmark::State& state) {
  const Graph& g = RmatGraph(static_cast<int>(state.range(0)));
  SamplerRegistry reg("sampler");
  RegisterSamplers(reg);
  auto sampler = std::move(reg.Create("uniform", g, {.fanouts = {25, 10}}).value());
  Rng rng(7);
  std::vector<NodeId> seeds(1024);
  MiniBatch mb;
  int64_t edges = 0;
  for (auto _ : state) {
    for (NodeId& s : seeds) s = static_cast<NodeId>(rng.NextBelow(static_cast<uint64_t>(g.num_nodes())));
    sampler->Sample(seeds, rng, mb);
    edges += mb.TotalEdges();
  }
  state.SetItemsProcessed(edges);  // items/s = sampled edges per second
}
BENCHMARK(BM_UniformSampling)->Arg(16)->Arg(22)->Unit(benchmark::kMillisecond);

// karateclub GitHub (GPL: read from ../shared, never copied): 37,700 nodes, 289,003 edges.
void BM_EpochGithub(benchmark::State& state) {
  const std::string path = std::string(DLSIM_SHARED_DIR) + "/data/graphs/karateclub_github_edges.csv";
  auto text = io::ReadTextFile(path);
  auto catalogs = io::LoadCatalogs({});
  if (!text.ok() || !catalogs.ok()) {
    state.SkipWithError("needs ../shared/data/graphs/karateclub_github_edges.csv");
    return;
  }
  GnnOptions o;
  o.graph.rmat = false;
  o.graph.edges = std::make_shared<const EdgeList>(io::ParseEdgeList(*text, path, {}).value());
  o.split.train = 0.6;
  o.order = "bfs";
  o.cache = {.policy = "fifo", .gpu_gib = 0.002};
  o.hardware.gpus_per_machine = 1;
  for (auto _ : state) benchmark::DoNotOptimize(Simulate(o, *catalogs, nullptr).value().epoch);
}
BENCHMARK(BM_EpochGithub)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace dlsim::gnn
