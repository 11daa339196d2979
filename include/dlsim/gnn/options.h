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
  std::string name;  // for reports: the file name or "rmat-22"
  bool rmat = true;  // generate (rmat_options) or use `edges` (read by io/ from a file)
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
  PipelineOptions pipeline;
  uint64_t seed = 1;
};

// One --compare column: the options of the base scenario with some policies replaced.
struct GnnVariant {
  std::string name;
  std::string order, cache_policy, partitioner;  // empty: keep the base scenario's
  int isolation = -1;                            // -1 keep, 0 off, 1 on
};

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_OPTIONS_H_
