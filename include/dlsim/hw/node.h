// Node (server) and network specifications: entries of the hardware catalog.
#ifndef DLSIM_HW_NODE_H_
#define DLSIM_HW_NODE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::hw {

enum class IntraNodeFabric { kNvSwitch, kNvLinkPairwise, kPcie };
std::string_view FabricName(IntraNodeFabric f);  // "nvswitch" | "nvlink-pairwise" | "pcie"

struct NodeSpec {
  std::string name;  // e.g. "dgx-h100"
  std::vector<std::string> aliases;
  std::string source;  // datasheets the numbers come from
  std::string gpu;     // GPU name (canonical or alias)
  int gpus_per_node = 0;
  IntraNodeFabric fabric = IntraNodeFabric::kNvSwitch;
  BytesPerSecond intra_bandwidth;  // per GPU per direction inside the node (NVLink or PCIe)
  int nics_per_node = 0;
  BytesPerSecond nic_bandwidth;  // per NIC per direction
  std::string network;           // default network name, e.g. "ib-ndr"
  Bytes host_memory;
  BytesPerSecond host_memory_bandwidth;
  int cpu_cores = 0;
  int gpus_per_pcie_switch = 0;  // PCIe topology: GPUs sharing one switch uplink
  Bytes local_disk;
  BytesPerSecond disk_bandwidth;
  double disk_read_iops = 0;  // aggregate 4 KiB random reads per second; 0: unknown
};

enum class NetworkTopology { kFatTree, kRailOptimized };
std::string_view TopologyName(NetworkTopology t);  // "fat-tree" | "rail-optimized"

struct NetworkSpec {
  std::string name;  // e.g. "ib-ndr"
  std::vector<std::string> aliases;
  std::string source;
  std::string technology;         // "infiniband" | "roce"
  BytesPerSecond link_bandwidth;  // per port per direction
  Duration latency;               // one-way end-to-end, small message
  NetworkTopology topology = NetworkTopology::kFatTree;
  double oversubscription = 1.0;  // >= 1; 1 means full bisection
};

}  // namespace dlsim::hw

#endif  // DLSIM_HW_NODE_H_
