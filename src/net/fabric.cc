#include <array>
#include <utility>

#include "dlsim/net/collective.h"

namespace dlsim::net {
namespace {

constexpr std::array<std::pair<Collective, std::string_view>, 6> kNames = {{
    {Collective::kAllReduce, "all-reduce"},
    {Collective::kReduceScatter, "reduce-scatter"},
    {Collective::kAllGather, "all-gather"},
    {Collective::kAllToAll, "all-to-all"},
    {Collective::kBroadcast, "broadcast"},
    {Collective::kSendRecv, "send-recv"},
}};

}  // namespace

std::string_view CollectiveName(Collective c) {
  for (const auto& [k, n] : kNames)
    if (k == c) return n;
  return "unknown";
}

std::optional<Collective> ParseCollective(std::string_view s) {
  for (const auto& [k, n] : kNames)
    if (n == s) return k;
  return std::nullopt;
}

Fabric MakeFabric(const hw::GpuSpec& gpu, const hw::NodeSpec& node, const hw::NetworkSpec& net,
                  int nics_per_node, BytesPerSecond nic_bw) {
  Fabric f;
  f.architecture = gpu.architecture;
  f.pcie_only = node.fabric == hw::IntraNodeFabric::kPcie || gpu.nvlink_bandwidth.value() <= 0;
  if (node.intra_bandwidth.value() > 0) {
    f.intra_bw = node.intra_bandwidth;
  } else {
    f.intra_bw = f.pcie_only ? gpu.PcieBandwidth() : gpu.nvlink_bandwidth;
  }
  f.intra_latency = f.pcie_only ? kPcieLatency : kNvSwitchLatency;
  f.nvls = gpu.nvls && node.fabric == hw::IntraNodeFabric::kNvSwitch && !f.pcie_only;

  if (nics_per_node <= 0 || nic_bw.value() <= 0) {
    nics_per_node = node.nics_per_node;
    nic_bw = node.nic_bandwidth;
  }
  const int gpus = node.gpus_per_node > 0 ? node.gpus_per_node : 1;
  f.inter_bw_per_gpu = nic_bw * (static_cast<double>(nics_per_node) / gpus);
  f.inter_latency = net.latency > Duration::Zero() ? net.latency : kDefaultNetworkLatency;
  f.oversubscription = net.oversubscription >= 1.0 ? net.oversubscription : 1.0;
  return f;
}

}  // namespace dlsim::net
