// CaliEX (Su et al., ICDE 2025): disk-based GNN training on one machine with cache plans for both
// the graph topology and the node features, an auto-tuned split of memory between them, and
// execution pipelined across stages. Claim: 3.28x on average over existing disk-based systems.
//
// Workload: GraphSAGE [25, 10] on R-MAT scale 18 (edge factor 16, undirected), 128 fp32 features,
// adjacency lists and features both on the NVMe of one PCIe server (1 GPU, 32 cores), host memory
// for caching = 5%, 10% and 20% of the on-disk data. Baselines (the disk-based systems CaliEX's
// abstract refers to; which ones it measured is not known): PyG on SSD (both files memory-mapped,
// one LRU page cache, stages back to back) and Ginex (Belady feature cache over superbatches of 16
// batches, a static degree-ordered neighbour cache at a fixed share, sample then gather, no overlap).
// CaliEX: static frequency caches for lists and rows, the split searched, stages pipelined with
// cores split between sampling and gathering. Headline: the mean of CaliEX's speed-up over both
// baselines at the three budgets. Choices: docs/reproductions.md, "CaliEX".
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "dlsim/gnn/simulate.h"
#include "dlsim/repro/reproduction.h"
#include "real_graph_runs.h"

namespace dlsim::repro {
namespace {

constexpr int kScale = 18;

gnn::GnnOptions CaliexWorkload(double memory_gib) {
  gnn::GnnOptions o;
  o.name = "repro-caliex";
  o.graph.name = "rmat-18";
  o.graph.rmat_options = {.scale = kScale, .edge_factor = 16, .seed = 1};
  o.features = {.dim = 128, .dtype = hw::DType::kFp32};
  o.sampler_options.fanouts = {25, 10};
  o.batch_size = 1024;
  o.hardware = {.node = "pcie-8x-l40s", .machines = 1, .gpus_per_machine = 1, .cpu_cores = 32};
  o.store = gnn::FeatureStore::kDisk;
  o.topology.store = gnn::TopologyStore::kDisk;
  o.cache = {.policy = "frequency", .gpu_gib = 0, .host_gib = 0};
  o.topology.cache = "frequency";
  o.disk.memory_gib = memory_gib;
  return o;
}

// The on-disk data: 2 x 16 x 2^18 stored targets of 4 B (fewer after duplicates; the fraction is of
// this upper bound) and 2^18 rows of 512 B. On a real graph: 2 x its arcs and its nodes.
double DataGib(double nodes = 1 << kScale, double arcs = double{1 << kScale} * 16) {
  return (arcs * 2 * 4 + nodes * 512) / (1 << 30);
}

std::vector<gnn::GnnVariant> Variants(double ginex_share) {
  gnn::GnnVariant pyg{.name = "pyg-ssd", .isolation = 0, .pipelined = 0, .page_cache = 1};
  gnn::GnnVariant ginex{.name = "ginex",
                        .cache_policy = "belady",
                        .isolation = 1,
                        .topology_cache = "degree",
                        .pipelined = 0,
                        .page_cache = 0,
                        .topology_share = ginex_share,
                        .superbatch = 16};
  gnn::GnnVariant caliex{
      .name = "caliex", .isolation = 1, .pipelined = 1, .page_cache = 0, .topology_share = -1};
  gnn::GnnVariant serial = caliex, half = caliex, no_topo = caliex;
  serial.name = "caliex, stages back to back";
  serial.pipelined = 0;
  half.name = "caliex, fixed 50% split";
  half.topology_share = 0.5;
  no_topo.name = "caliex, no topology cache";
  no_topo.topology_share = 0;
  return {pyg, ginex, caliex, serial, half, no_topo};
}

class CaliexReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    ReproResult r;
    r.name = "caliex";
    r.claim =
        "CaliEX trains GNNs from disk 3.28x faster on average than existing disk-based systems (ICDE'25)";
    r.paper_ratio = 3.28;
    r.off_cause =
        "a ~160 MB graph; PyG-on-SSD page faults are charged at the device's full 2M IOPS and Ginex pays "
        "none of its own overheads; on the shipped web graph cnr-2000 the page cache, helped by the ids' "
        "locality, beats our row caches (1.03x)";
    const double topo_share = 16.0 * 2 * 4 / (16.0 * 2 * 4 + 512);  // Ginex: memory in proportion to data
    double sum = 0;
    int n = 0;
    for (double fraction : {0.05, 0.10, 0.20}) {
      const std::vector<gnn::GnnVariant> variants = Variants(topo_share);
      DLSIM_ASSIGN_OR_RETURN(auto res,
                             gnn::Compare(CaliexWorkload(fraction * DataGib()), variants, *env.catalogs));
      const double caliex = res[2].epoch.ToSeconds();
      for (size_t b : {0u, 1u}) {
        sum += res[b].epoch.ToSeconds() / caliex;
        ++n;
      }
      for (size_t i = 0; i < res.size(); ++i)
        r.details.push_back(Row(variants[i].name, fraction, res[i], caliex));
    }
    r.our_ratio = sum / n;
    DLSIM_ASSIGN_OR_RETURN(auto graphs, internal::ReadShippedGraphs(env));
    for (const ReproEnv::NamedEdgeList& g : graphs)
      DLSIM_RETURN_IF_ERROR(AddRealGraph(env, g, topo_share, r));
    r.workload =
        "GraphSAGE [25, 10], batches of 1024, R-MAT scale 18 (undirected), 128 fp32 features; lists "
        "and features on the NVMe of one pcie-8x-l40s server (1 GPU, 32 cores); cache memory 5/10/20% of "
        "the data";
    r.baseline =
        "PyG on SSD (mmap, one LRU page cache, no overlap) and Ginex (Belady over superbatches of 16, "
        "static degree neighbour cache at a proportional share, no overlap); headline = mean over both "
        "baselines and the three budgets";
    r.notes =
        "CaliEX's exact cache plans are not public: this is the design its abstract names (topology + "
        "feature caches, a searched split, pipelining). The disk is the bottleneck of every variant; see "
        "docs/reproductions.md";
    return r;
  }

 private:
  // The same budgets on a shipped real graph: 5/10/20% of its own on-disk data.
  static Status AddRealGraph(const ReproEnv& env, const ReproEnv::NamedEdgeList& g, double topo_share,
                             ReproResult& r) {
    for (double fraction : {0.05, 0.10, 0.20}) {
      auto budget = [fraction](gnn::GnnOptions& o, int64_t nodes, int64_t arcs) {
        o.disk.memory_gib = fraction * DataGib(static_cast<double>(nodes), static_cast<double>(arcs));
      };
      const std::vector<gnn::GnnVariant> variants = Variants(topo_share);
      DLSIM_ASSIGN_OR_RETURN(internal::RealGraphRun run,
                             internal::RunOnGraph(env, CaliexWorkload(0), variants, g, budget));
      const double caliex = run.results[2].epoch.ToSeconds();
      for (size_t i = 0; i < run.results.size(); ++i) {
        r.real_graphs.push_back(
            internal::WithGraphColumn(g.name, Row(variants[i].name, fraction, run.results[i], caliex)));
      }
    }
    return Status::Ok();
  }

  static nlohmann::ordered_json Row(const std::string& name, double fraction, const gnn::GnnResult& g,
                                    double caliex_s) {
    return {{"memory", fmt::format("{:.0f}%", fraction * 100)},
            {"variant", name},
            {"epoch_ms", g.epoch.ToMillis()},
            {"caliex_speedup", g.epoch.ToSeconds() / caliex_s},
            {"bottleneck", g.bottleneck},
            {"topology_share", g.topology_share},
            {"topology_hits", g.topology_hit_ratio},
            {"feature_hits", g.host_hit_ratio},
            {"disk_pages_per_batch", g.disk_pages_per_batch}};
  }
};

}  // namespace

void RegisterCaliex(ReproRegistry& reg) {
  reg.RegisterBuiltin("caliex",
                      "CaliEX (ICDE 2025): disk-based GNN training vs PyG-on-SSD and Ginex, 3.28x avg",
                      [] { return std::make_unique<CaliexReproduction>(); });
}

}  // namespace dlsim::repro
