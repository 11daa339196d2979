// Collective-communication time models (NCCL-style ring, tree, NVLS, hierarchical).
//
// A CollectiveModel answers "how long does this collective take on this group and fabric?".
// Models are stateless after construction and thread-safe for concurrent const use. Build
// them through the registry so the name is checked:
//
//   dlsim::Registry<dlsim::net::CollectiveModel, const dlsim::net::NetworkCalibration&> reg("collective");
//   dlsim::net::RegisterCollectiveModels(reg);
//   auto model = reg.Create("nccl", calibration);            // Result<unique_ptr<CollectiveModel>>
//   dlsim::net::Fabric f = dlsim::net::MakeFabric(gpu, node, network, 8, dlsim::Gbps(400));
//   dlsim::Duration t = (*model)->Time(dlsim::net::Collective::kAllReduce, dlsim::MiB(64),
//                                      {.size = 16, .ranks_per_node = 8}, f);
//
// Formulas, constants and the fit against nccl-tests: docs/network-model.md.
#ifndef DLSIM_NET_COLLECTIVE_H_
#define DLSIM_NET_COLLECTIVE_H_

#include <optional>
#include <string>
#include <string_view>

#include "dlsim/core/registry.h"
#include "dlsim/core/units.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/hw/node.h"
#include "dlsim/net/calibration.h"

namespace dlsim::net {

enum class Collective { kAllReduce, kReduceScatter, kAllGather, kAllToAll, kBroadcast, kSendRecv };
std::string_view CollectiveName(Collective c);                  // "all-reduce", "reduce-scatter", ...
std::optional<Collective> ParseCollective(std::string_view s);  // inverse of CollectiveName

// Where a communicator's ranks sit. Ranks of a group are spread evenly over `nodes` nodes
// (nodes = size / ranks_per_node). For send/recv, size is 2 and ranks_per_node is 2 when both
// peers share a node, 1 when they do not.
struct GroupLayout {
  int size = 1;
  int ranks_per_node = 1;
};

// The links a group uses. Built from the catalog by MakeFabric(), or by hand in tests.
struct Fabric {
  BytesPerSecond intra_bw;  // per GPU per direction (NVLink via NVSwitch, or PCIe)
  BytesPerSecond
      inter_bw_per_gpu;  // NIC bandwidth available to one GPU per direction (nics*bw/gpus_per_node)
  Duration intra_latency, inter_latency;
  bool nvls = false;              // NVLink SHARP in-switch reduction
  double oversubscription = 1.0;  // fat-tree, >= 1
  bool pcie_only = false;
  std::string architecture;  // GPU architecture ("ampere", "hopper"): selects the NVLink calibration
};

// Wire latency of one NVSwitch hop (ASTRA-sim "HGX-H100-validated" network: 936.25 ns).
inline constexpr Duration kNvSwitchLatency = Nanos(936);
// Wire latency of one PCIe peer-to-peer transfer through a switch (order of magnitude; calibration
// step_latency carries the software part).
inline constexpr Duration kPcieLatency = Nanos(1500);
// Used when the network spec gives no latency (one InfiniBand/RoCE switch traversal plus NIC).
inline constexpr Duration kDefaultNetworkLatency = Nanos(3000);

// intra_bw: node.intra_bandwidth, else gpu.nvlink_bandwidth, else the GPU's PCIe bandwidth.
// inter_bw_per_gpu: nics_per_node * nic_bw / node.gpus_per_node (node.nics_per_node and
// node.nic_bandwidth when nics_per_node <= 0 or nic_bw is zero). nvls: gpu.nvls on an NVSwitch node.
Fabric MakeFabric(const hw::GpuSpec& gpu, const hw::NodeSpec& node, const hw::NetworkSpec& net,
                  int nics_per_node, BytesPerSecond nic_bw);

class CollectiveModel {
 public:
  virtual ~CollectiveModel() = default;
  // Time of one collective. Size convention as nccl-tests: all-reduce/broadcast: buffer bytes;
  // all-gather: total OUTPUT bytes; reduce-scatter: total INPUT bytes; all-to-all: total bytes
  // sent per rank (its own share included); send/recv: message bytes.
  // A group of one rank, or zero bytes, takes zero time. Precondition: size >= 0, g.size >= 1,
  // g.ranks_per_node >= 1 (values above size are clamped to size).
  virtual Duration Time(Collective c, Bytes size, const GroupLayout& g, const Fabric& f) const = 0;
  virtual std::string_view name() const = 0;
};

using CollectiveRegistry = Registry<CollectiveModel, const NetworkCalibration&>;

// Registers "nccl" (default: the fastest of ring / tree / NVLS / hierarchical per size and layout,
// as NCCL's tuner picks), "ring", "tree", "ideal" (alpha-beta ring, 100% bus efficiency, no ramp,
// wire latencies only: for closed-form tests). Names already in `reg` are left as they are.
void RegisterCollectiveModels(CollectiveRegistry& reg);
inline constexpr std::string_view kDefaultCollectiveModel = "nccl";

}  // namespace dlsim::net

#endif  // DLSIM_NET_COLLECTIVE_H_
