// The gnn module's entry point (the module template, docs/design/architecture.md): one epoch of
// sampled mini-batch GNN training, with real sampling on the real graph, real cache hit ratios and
// real cross-partition requests, timed on the catalog's hardware.
//
//   Result<catalog::Catalogs> cat = io::LoadCatalogs({});
//   Result<gnn::GnnResult> r = gnn::Simulate(options, *cat, /*sink=*/nullptr);
//   if (r.ok()) std::cout << r->epoch.ToSeconds() << " s, bottleneck " << r->bottleneck;
//
// What is simulated (docs/gnn.md): the graph is built (or generated), split and partitioned over
// `machines`; every machine walks its training nodes in the seed order, cut into mini-batches; each
// batch is sampled and every node it reads is looked up in the machine's GPU cache (the GPUs' caches
// as one, sharded over NVLink), then the host cache, then the backing store. The counts become per
// batch stage times (sample, gather, copy, compute) run through the pipeline (pipeline.h); the epoch
// is the slowest machine's. Thread-safe for distinct arguments.
#ifndef DLSIM_GNN_SIMULATE_H_
#define DLSIM_GNN_SIMULATE_H_

#include <string>
#include <utility>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/progress.h"
#include "dlsim/core/result.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/options.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/report/sink.h"

namespace dlsim::gnn {

struct StageResult {
  std::string name;
  Duration busy;  // summed over the slowest machine's batches
  Duration mean_per_batch;
  double utilisation = 0;  // busy / epoch
  int cores = 0;           // CPU cores assigned (CPU stages), else 0
};

// Bytes of node features read per tier over the epoch, all machines.
struct TierBytes {
  Bytes gpu;     // the reading GPU's own cache shard
  Bytes nvlink;  // a peer GPU's shard
  Bytes host;    // host memory (the machine's own features or its host cache)
  Bytes remote;  // another machine's host memory, over the network
  Bytes disk;    // NVMe
};

struct GnnResult {
  bool feasible = true;
  std::string reason;
  std::string graph_name;
  int64_t nodes = 0, edges = 0;  // edges: stored (both directions when undirected)
  DegreeStats degrees;
  double graph_bytes = 0;  // CSR (+ CSC)
  int64_t train_nodes = 0, batches = 0;
  int machines = 1, gpus_per_machine = 1;
  std::string sampler, order, cache_policy, partitioner;
  double sampled_edges_per_batch = 0, input_nodes_per_batch = 0;
  int64_t gpu_cache_nodes = 0, host_cache_nodes = 0;  // per machine
  double gpu_hit_ratio = 0;                           // reads served by a GPU cache / all reads
  double host_hit_ratio = 0;  // host-cache hits / reads that reached the host cache (0 when none)
  PartitionStats partition;
  double remote_requests_per_batch = 0;  // frontier nodes whose adjacency is on another machine
  // Topology: where lists are read from, the topology cache (largest over machines) and its hits.
  std::string topology_store = "memory", topology_cache = "none";
  int64_t topology_cache_lists = 0;
  double topology_cache_bytes = 0;
  double topology_hit_ratio = 0;  // lists served by the topology cache / lists read beyond own memory
  // Disk-based runs: pages read per batch (adjacency + features), the memory split used (-1 when no
  // budget is split) and, when it was searched, the predicted pages of every share tried.
  double disk_pages_per_batch = 0, topology_pages_per_batch = 0;
  double topology_share = -1;
  std::vector<std::pair<double, double>> split_curve;  // (share, predicted pages of the pre-sampled epoch)
  std::vector<StageResult> stages;
  std::string bottleneck;
  Duration epoch, fill;
  TierBytes bytes;
};

// Errors: unknown sampler, order, cache policy, topology cache or partitioner (listing the known
// ones); bad sampler options; topology on disk with machines > 1; disk options without anything on
// disk; a graph that cannot be built; a GPU cache holding more nodes than the graph has; an
// unknown node in the catalog. Infeasible (a result with feasible = false): the GPU cache does not
// fit GPU memory, the features do not fit host memory or disk. `sink` (may be null) gets a track
// per stage of the slowest machine; the caller calls Begin/Finish. `progress` (may be empty) is called with
// the training nodes sampled so far of all there are, after each superbatch; a stop asked for (core/cancel.h)
// is seen there too (kCancelled).
Result<GnnResult> Simulate(const GnnOptions& options, const catalog::Catalogs& catalogs, report::Sink* sink,
                           const ProgressFn& progress = {});

// The base scenario and each variant on one graph (built once). Errors as Simulate; `progress` counts the
// training nodes of every variant.
Result<std::vector<GnnResult>> Compare(const GnnOptions& base, const std::vector<GnnVariant>& variants,
                                       const catalog::Catalogs& catalogs, const ProgressFn& progress = {});
// The default --compare set: dgl-like (shuffle, no cache, hash), pagraph (degree cache), lru,
// bgl (bfs order, FIFO, bgl partitioner, resource isolation).
std::vector<GnnVariant> DefaultVariants();

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_SIMULATE_H_
