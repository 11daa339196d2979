// Options of one GNN training-data-pipeline simulation (`dlsim gnn`): plain structs with defaults
// and units, no behaviour. io::LoadGnnScenarioFile fills them from YAML (docs/gnn.md).
#ifndef DLSIM_GNN_OPTIONS_H_
#define DLSIM_GNN_OPTIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/gnn/dataset.h"
#include "dlsim/gnn/graph.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::gnn {

struct GraphSource {
  std::string name;      // for reports: the file name or "rmat-22"
  bool rmat = true;      // generate (rmat_options) or use `edges` (read by io/ from a file)
  bool shipped = false;  // `edges` is the real graph shipped with dlsim named `name` (io/shipped_graphs.h)
  RmatOptions rmat_options;
  std::shared_ptr<const EdgeList> edges;  // shared: --compare variants reuse one list
  bool undirected = true;
};

enum class GnnLayer { kSage, kGcn, kGat };
std::string_view GnnLayerName(GnnLayer l);  // "sage" | "gcn" | "gat"

struct ModelOptions {
  GnnLayer layer = GnnLayer::kSage;
  int hidden = 256;
  int classes = 47;
  int heads = 4;  // gat
  hw::DType dtype = hw::DType::kFp32;
};

struct HardwareOptions {
  std::string node = "dgx-a100";  // catalog node: GPUs, PCIe, NVLink, NICs, host memory, cores, disk
  int machines = 1;               // graph-store servers = trainer machines = partitions
  int gpus_per_machine = 0;       // 0: the node's GPU count
  int cpu_cores = 0;              // 0: the node's cores
};

// Where the node features live: every machine's host memory (replicated), partitioned over the
// machines' host memory (remote ones over the network), or the local NVMe disk.
enum class FeatureStore { kHost, kPartitioned, kDisk };
std::string_view FeatureStoreName(FeatureStore s);  // "host" | "partitioned" | "disk"

struct CacheOptions {
  std::string policy = "fifo";  // cache-policy registry; used for the GPU and the host cache
  double gpu_gib = 1;           // per GPU; the machine's GPU caches form one cache sharded over NVLink
  double host_gib = 0;          // host cache in front of remote or disk features (partitioned/disk)
};

// Where adjacency lists are read from when they are not a machine's own in-memory CSR, and which
// of them a machine holds in host memory (a topology cache, topology_cache.h).
enum class TopologyStore { kMemory, kDisk };
std::string_view TopologyStoreName(TopologyStore s);  // "memory" | "disk"

struct TopologyOptions {
  // memory: every machine holds its partition's CSR (and, with machines > 1, asks the owner for
  // other lists); disk: one machine reads lists from its NVMe (CaliEX, Ginex, PyG on SSD).
  TopologyStore store = TopologyStore::kMemory;
  std::string cache = "none";  // topology-cache registry: the lists held in host memory
  double cache_gib = 0;        // per machine; memory_gib (DiskOptions) may set it
  double tau = 0;              // lowest score cached (AliGraph's importance threshold)
  int hops = 1;                // "importance": k of Imp^(k), 1 or 2
};

// Single-machine disk-based training: how host memory is spent on the two caches, and the
// inspector's look-ahead. Applies when features (store: disk) or topology are on disk.
struct DiskOptions {
  // PyG on SSD: the feature file and the adjacency file are memory-mapped, so one LRU page cache
  // of memory_gib (4 KiB pages) holds both; cache.host_gib and the topology cache are unused.
  bool page_cache = false;
  double memory_gib = 0;       // > 0: the budget of the two caches, split by topology_share
  double topology_share = -1;  // fraction of memory_gib for adjacency lists; -1: auto (CaliEX's search)
  int superbatch = 1;          // batches sampled before their features are gathered (Ginex's inspector;
                               // a superbatch also ends once it holds 2^26 reads)
};

struct PipelineOptions {
  bool pipelined = true;            // stages overlap across batches
  bool isolation = false;           // BGL: cores split between sampling and gathering to balance them
  double sample_ns_per_edge = 50;   // CPU time per sampled edge on one core
  double gather_gbps_per_core = 5;  // feature rows copied per core, GB/s (capped by host memory)
};

struct GnnOptions {
  std::string name = "gnn";
  GraphSource graph;
  FeatureSpec features;
  SplitOptions split;
  std::string sampler = "uniform";
  SamplerOptions sampler_options;
  std::string order = "shuffle";
  int batch_size = 1024;
  SeedOrderOptions order_options;
  ModelOptions model;
  HardwareOptions hardware;
  std::string partitioner = "hash";
  PartitionOptions partition_options;
  FeatureStore store = FeatureStore::kHost;
  CacheOptions cache;
  TopologyOptions topology;
  DiskOptions disk;
  PipelineOptions pipeline;
  uint64_t seed = 1;
};

// One --compare column: the options of the base scenario with some policies replaced.
struct GnnVariant {
  std::string name;
  std::string order, cache_policy, partitioner;  // empty: keep the base scenario's
  int isolation = -1;                            // -1 keep, 0 off, 1 on
  std::string topology_cache;                    // empty: keep
  int pipelined = -1;                            // -1 keep, 0 off, 1 on
  int page_cache = -1;                           // -1 keep, 0 off, 1 on
  double topology_share = -2;                    // -2 keep; -1 auto; else a fraction
  int superbatch = 0;                            // 0 keep
};

// A variant that replaces the seed order, the feature cache, the partitioner and isolation.
GnnVariant PolicyVariant(std::string name, std::string order, std::string cache, std::string partitioner,
                         int isolation);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_OPTIONS_H_
