// One machine's epoch of mini-batches, replayed for real: seed order, sampling, and every feature
// read looked up in the caches and the tiers behind them. The counts per batch are what the stage
// times are priced from (stage_cost.h). Internal to the gnn module.
#ifndef DLSIM_SRC_GNN_EPOCH_H_
#define DLSIM_SRC_GNN_EPOCH_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/gnn/feature_cache.h"
#include "dlsim/gnn/options.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/gnn/topology_cache.h"

namespace dlsim::gnn::internal {

struct Registries {
  SamplerRegistry samplers{"sampler"};
  SeedOrderRegistry orders{"seed-order"};
  CachePolicyRegistry caches{"cache-policy"};
  PartitionerRegistry partitioners{"partitioner"};
  TopologyCacheRegistry topology_caches{"topology-cache"};
  Registries();
};

struct BatchCounts {
  std::vector<int64_t> frontier;   // frontier sizes, seeds first (hops + 1)
  std::vector<int64_t> hop_edges;  // sampled edges per hop, nearest the seeds first
  int64_t edges = 0;
  // Feature reads (nodes) by where they were served.
  int64_t gpu_local = 0, gpu_peer = 0, host = 0, host_cache_hits = 0, remote = 0, disk = 0;
  int64_t remote_requests = 0;  // frontier nodes (before the last hop) owned by another machine
  int64_t round_trips = 0;      // (hop, remote machine) pairs: one request batch each
  double remote_edges = 0;      // sampled edges whose adjacency came from another machine
  // Adjacency lists read (distinct sampled-from nodes of the batch), and those a topology cache held.
  int64_t adjacency_reads = 0, topology_hits = 0;
  // 4 KiB pages read from the disk: adjacency lists (topology on disk) and features together.
  int64_t disk_pages = 0, topology_pages = 0;
  int64_t Reads() const { return gpu_local + gpu_peer + host + remote + disk; }
};

struct EpochSetup {
  const Graph& graph;
  std::span<const NodeId> train;
  std::span<const int32_t> part;  // node -> machine
  const GnnOptions& options;
  int gpus = 1;
  int64_t gpu_cache_nodes = 0;  // the machine's GPU caches together
  int64_t host_cache_nodes = 0;
  std::span<const uint32_t> frequency;  // for the "frequency" cache policy
  // Per machine (empty: no topology cache): the adjacency lists held in host memory.
  std::span<const std::unique_ptr<TopologyCache>> topology;
  int64_t page_cache_pages = 0;  // with disk.page_cache: pages the LRU page cache over both files holds
  // Called with the training nodes of the machine sampled so far, after each superbatch (may be empty).
  std::function<void(size_t)> on_seeds{};
};

// Disk layout used for page counts: the CSR targets file (4 B per target, lists in node order;
// the offsets stay in memory) and the feature file (rows of `row_bytes` in node order).
int64_t ListPages(const Graph& g, NodeId v);
int64_t TopologyFilePages(const Graph& g);

// The batches of `machine` (its training nodes, in the seed order). Errors: unknown policy names; kCancelled
// when a stop was asked for (core/cancel.h, polled after each superbatch).
Result<std::vector<BatchCounts>> RunMachineEpoch(const EpochSetup& setup, const Registries& reg, int machine);

// Reads per node over one pre-sampled epoch of all training nodes (another Rng stream): feature
// reads (input nodes) and adjacency reads (distinct sampled-from nodes per batch).
struct Presample {
  std::vector<uint32_t> features, adjacency;
};
Result<Presample> PresampleEpoch(const EpochSetup& setup, const Registries& reg);

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_EPOCH_H_
