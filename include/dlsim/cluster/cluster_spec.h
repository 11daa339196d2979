// The machines of a simulated cluster: nodes with a GPU type and count, CPU and host memory, and
// a rack (switch) each. Built from hardware-catalog nodes (`cluster.nodes` of a scenario) or
// from a node-list file (Alibaba openb's `sn,cpu_milli,memory_mib,gpu,model`).
//
//   cluster::ClusterSpec c;
//   c.AddNodes("dgx-a100", "a100-sxm4-80gb", /*count=*/16, /*gpus=*/8, /*cpu_milli=*/128000,
//              /*memory_mib=*/1 << 20, /*nodes_per_rack=*/4);
//   c.total_gpus();   // 128
//
// GPU types are interned to small integers (type ids) so the scheduler compares integers.
// A value type; thread-safe as a value.
#ifndef DLSIM_CLUSTER_CLUSTER_SPEC_H_
#define DLSIM_CLUSTER_CLUSTER_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::cluster {

// The largest cluster dlsim simulates: memory is O(nodes + GPUs), a scheduling pass O(nodes).
inline constexpr int kMaxNodes = 1 << 20;
inline constexpr int kMaxGpusPerNode = 64;

struct ClusterNode {
  std::string name;        // "dgx-a100-0003", or the node list's `sn`
  int gpu_type = 0;        // index into ClusterSpec::gpu_types()
  int gpus = 0;            // 0 for a CPU-only node
  int64_t cpu_milli = 0;   // 0: not tracked (no CPU constraint)
  int64_t memory_mib = 0;  // 0: not tracked
  int rack = 0;
  double nic_bytes_per_s = 0;  // all compute NICs together, one direction; 0: unknown (not a limit)
};

class ClusterSpec {
 public:
  // Appends `count` identical nodes named NAME-0000, NAME-0001, ...; racks hold
  // `nodes_per_rack` nodes each (<= 0: one rack per group). Returns the first new node's index.
  int AddNodes(std::string_view name, std::string_view gpu_type, int count, int gpus, int64_t cpu_milli,
               int64_t memory_mib, int nodes_per_rack);
  // Appends one node (node lists).
  void AddNode(std::string name, std::string_view gpu_type, int gpus, int64_t cpu_milli, int64_t memory_mib,
               int rack);

  const std::vector<ClusterNode>& nodes() const { return nodes_; }
  const std::vector<std::string>& gpu_types() const { return gpu_types_; }
  // Type id of `name`; nullopt when no node has that GPU type.
  std::optional<int> FindGpuType(std::string_view name) const;
  int InternGpuType(std::string_view name);
  // Sets the NIC bandwidth (bytes/s, one direction, all NICs) of nodes [from, end).
  void SetNicBandwidth(int from, double bytes_per_s);
  int64_t total_gpus() const;
  int64_t gpus_of_type(int type) const;
  int racks() const { return racks_; }

 private:
  std::vector<ClusterNode> nodes_;
  std::vector<std::string> gpu_types_;
  int racks_ = 0;
};

// Parses an openb-style node list (CSV, header `sn,cpu_milli,memory_mib,gpu,model`; extra
// columns are ignored; CPU-only rows (gpu 0) are kept). `nodes_per_rack` groups rows into racks
// in file order. Errors name the file, line and column: a missing column, a non-integer or
// negative cell, more than kMaxGpusPerNode GPUs, an empty list, more than kMaxNodes rows.
Result<ClusterSpec> ParseNodeList(std::string_view text, const std::string& file_name, int nodes_per_rack);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_CLUSTER_SPEC_H_
