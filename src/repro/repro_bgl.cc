// BGL (Liu et al., NSDI 2023): GPU-efficient GNN training by optimising graph data I/O and
// preprocessing. Claim: 1.9x on average over DGL/Euler/PyG (the arXiv v1 preprint said 20.68x).
//
// Workload: GraphSAGE [25, 10] on a Graph500 R-MAT graph at scale 18 (the shipped scenario
// data/scenarios/gnn_bgl_rmat22.yaml at 1/16 of the size: the same cache fraction, 25% of the nodes
// in the GPU caches), 4 machines of 8 A100, features partitioned over the machines' host memory.
// Baseline: DGL-like (shuffled seeds, no feature cache, hash partition, no resource isolation). BGL:
// BFS-ordered seeds, FIFO cache, BGL's partitioner, isolation. The details rows switch BGL's parts on
// one at a time. Choices: docs/reproductions.md, "BGL".
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "dlsim/gnn/simulate.h"
#include "dlsim/repro/reproduction.h"
#include "real_graph_runs.h"

namespace dlsim::repro {
namespace {

gnn::GnnOptions BglWorkload() {
  gnn::GnnOptions o;
  o.name = "repro-bgl";
  o.graph.name = "rmat-18";
  o.graph.rmat_options = {.scale = 18, .edge_factor = 16, .seed = 1};
  o.features = {.dim = 128, .dtype = hw::DType::kFp32};
  o.sampler_options.fanouts = {25, 10};
  o.batch_size = 1024;
  o.order_options = {.sequences = 4, .batch_size = 1024};
  o.hardware = {.node = "dgx-a100", .machines = 4, .gpus_per_machine = 8, .cpu_cores = 32};
  o.partition_options.blocks_per_part = 64;
  o.store = gnn::FeatureStore::kPartitioned;
  o.cache = {.policy = "fifo", .gpu_gib = 0.0625 / 16, .host_gib = 0.25 / 16};
  return o;
}

std::vector<gnn::GnnVariant> Variants() {
  return {gnn::PolicyVariant("dgl-like", "shuffle", "none", "hash", 0),
          gnn::PolicyVariant("bgl", "bfs", "fifo", "bgl", 1),
          gnn::PolicyVariant("+fifo cache", "shuffle", "fifo", "hash", 0),
          gnn::PolicyVariant("+bfs order", "bfs", "fifo", "hash", 0),
          gnn::PolicyVariant("+bgl partition", "bfs", "fifo", "bgl", 0),
          gnn::PolicyVariant("pagraph (static degree)", "shuffle", "degree", "hash", 0)};
}

class BglReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    const std::vector<gnn::GnnVariant> variants = Variants();
    DLSIM_ASSIGN_OR_RETURN(auto results, gnn::Compare(BglWorkload(), variants, *env.catalogs));
    ReproResult r;
    r.name = "bgl";
    r.claim = "BGL trains GNNs 1.9x faster on average than existing systems (NSDI'23; 20.68x in arXiv v1)";
    r.paper_ratio = 1.9;
    r.off_cause =
        "R-MAT has no locality for BGL's partitioner (edge cut 75% -> 72%): on the shipped web graph "
        "cnr-2000 it cuts 21% and BGL gives 1.61x (the real_graphs rows); no contention term, so isolation "
        "cannot win";
    const double base = results[0].epoch.ToSeconds();
    r.our_ratio = base / results[1].epoch.ToSeconds();
    r.workload =
        "GraphSAGE [25, 10], batches of 1024, R-MAT scale 18, 4 x DGX A100 (8 GPUs, 32 cores), "
        "features partitioned, 4 MiB GPU cache per GPU";
    r.baseline = "DGL-like: shuffled seeds, no cache, hash partition, shared cores";
    r.notes =
        "CPU costs per sampled edge and copied byte are assumptions (docs/gnn.md); R-MAT is an expander, "
        "so no partitioner cuts much; the static degree cache (PaGraph) is strong on power-law graphs";
    for (size_t i = 0; i < results.size(); ++i) r.details.push_back(Row(variants[i].name, results[i], base));
    // The same variants on the shipped real graphs, the caches holding the same share of the nodes.
    DLSIM_ASSIGN_OR_RETURN(auto real,
                           internal::RunOnShippedGraphs(env, BglWorkload(), variants, ScaleCaches));
    for (const internal::RealGraphRun& g : real) {
      const double real_base = g.results[0].epoch.ToSeconds();
      for (size_t i = 0; i < g.results.size(); ++i)
        r.real_graphs.push_back(
            internal::WithGraphColumn(g.graph, Row(variants[i].name, g.results[i], real_base)));
    }
    return r;
  }

 private:
  static nlohmann::ordered_json Row(const std::string& name, const gnn::GnnResult& g, double base_s) {
    return {{"variant", name},
            {"epoch_ms", g.epoch.ToMillis()},
            {"speedup", base_s / g.epoch.ToSeconds()},
            {"bottleneck", g.bottleneck},
            {"gpu_hit_ratio", g.gpu_hit_ratio},
            {"edge_cut", g.partition.edge_cut},
            {"remote_requests_per_batch", g.remote_requests_per_batch}};
  }
  // BGL's caches hold the share of an R-MAT scale-18 graph's nodes they hold there.
  static void ScaleCaches(gnn::GnnOptions& o, int64_t nodes, int64_t /*arcs*/) {
    const double share = static_cast<double>(nodes) / (1 << 18);
    o.cache.gpu_gib *= share;
    o.cache.host_gib *= share;
  }
};

}  // namespace

void RegisterBgl(ReproRegistry& reg) {
  reg.RegisterBuiltin("bgl", "BGL (NSDI 2023): GNN data I/O and preprocessing vs DGL-like, 1.9x avg",
                      [] { return std::make_unique<BglReproduction>(); });
}

}  // namespace dlsim::repro
