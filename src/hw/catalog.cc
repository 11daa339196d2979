#include "dlsim/hw/catalog.h"

#include <string>

#include "dlsim/core/strings.h"

namespace dlsim::hw {
namespace {

Error Invalid(std::string_view kind, const std::string& name, const std::string& what) {
  return Error::InvalidArgument(std::string(kind) + " '" + name + "': " + what);
}

std::string Num(double v) { return FormatNumber(v, 6); }

Status ValidateMig(const GpuSpec& g, const MigProfile& p) {
  const std::string where = "MIG profile '" + p.name + "': ";
  if (p.name.empty()) return Invalid("GPU", g.name, "MIG profile without a name");
  if (p.compute_slices < 1 || p.compute_slices > 7)
    return Invalid("GPU", g.name,
                   where + "compute_slices must be 1..7, found " + std::to_string(p.compute_slices));
  if (p.memory_slices < 1 || p.memory_slices > 8)
    return Invalid("GPU", g.name,
                   where + "memory_slices must be 1..8, found " + std::to_string(p.memory_slices));
  if (p.sms < 1 || p.sms > g.sm_count)
    return Invalid(
        "GPU", g.name,
        where + "sms must be 1.." + std::to_string(g.sm_count) + ", found " + std::to_string(p.sms));
  if (p.memory.value() <= 0 || p.memory > g.hbm_capacity)
    return Invalid("GPU", g.name,
                   where + "memory must be positive and at most the GPU's " + Num(g.hbm_capacity.ToGiB()) +
                       " GiB, found " + Num(p.memory.ToGiB()) + " GiB");
  if (p.max_instances < 1 || p.max_instances > 7)
    return Invalid("GPU", g.name,
                   where + "max_instances must be 1..7, found " + std::to_string(p.max_instances));
  if (static_cast<int>(p.start_slices.size()) < p.max_instances)
    return Invalid("GPU", g.name,
                   where + "needs at least max_instances (" + std::to_string(p.max_instances) +
                       ") start slices, found " + std::to_string(p.start_slices.size()));
  for (int s : p.start_slices) {
    if (s < 0 || s + p.memory_slices > 8)
      return Invalid("GPU", g.name,
                     where + "start slice " + std::to_string(s) + " does not fit " +
                         std::to_string(p.memory_slices) + " memory slices in 0..7");
  }
  return Status::Ok();
}

}  // namespace

Status ValidateGpu(const GpuSpec& g) {
  if (g.name.empty()) return Error::InvalidArgument("GPU entry without a name");
  if (g.Peak(DType::kFp32).value() <= 0) return Invalid("GPU", g.name, "dense fp32 peak must be positive");
  for (DType t : kAllDTypes) {
    if (g.Peak(t).value() < 0)
      return Invalid("GPU", g.name, "dense " + std::string(DTypeName(t)) + " peak must not be negative");
  }
  if (g.hbm_capacity.value() <= 0) return Invalid("GPU", g.name, "memory capacity must be positive");
  if (g.hbm_bandwidth.value() <= 0) return Invalid("GPU", g.name, "memory bandwidth must be positive");
  if (g.sm_count <= 0) return Invalid("GPU", g.name, "sm_count must be positive");
  if (g.l2_size.value() < 0) return Invalid("GPU", g.name, "L2 size must not be negative");
  if (g.nvlink_bandwidth.value() < 0) return Invalid("GPU", g.name, "NVLink bandwidth must not be negative");
  if (g.pcie_gen < 0 || g.pcie_gen > 6) return Invalid("GPU", g.name, "pcie_gen must be 0..6");
  if (g.pcie_lanes < 0 || g.pcie_lanes > 32) return Invalid("GPU", g.name, "pcie_lanes must be 0..32");
  if (g.power_watts < 0) return Invalid("GPU", g.name, "power must not be negative");
  if (g.max_sm_clock_mhz < 0) return Invalid("GPU", g.name, "max_sm_clock_mhz must not be negative");
  if (g.nvls && g.nvlink_bandwidth.value() <= 0)
    return Invalid("GPU", g.name, "nvls needs NVLink (nvlink bandwidth is zero)");
  for (const auto& p : g.mig) DLSIM_RETURN_IF_ERROR(ValidateMig(g, p));
  return Status::Ok();
}

Status ValidateNode(const NodeSpec& n) {
  if (n.name.empty()) return Error::InvalidArgument("node entry without a name");
  if (n.gpu.empty()) return Invalid("node", n.name, "gpu is required");
  if (n.gpus_per_node <= 0) return Invalid("node", n.name, "gpus_per_node must be positive");
  if (n.intra_bandwidth.value() <= 0 && n.gpus_per_node > 1)
    return Invalid("node", n.name, "intra-node bandwidth must be positive");
  if (n.nics_per_node < 0) return Invalid("node", n.name, "nics_per_node must not be negative");
  if (n.nics_per_node > 0 && n.nic_bandwidth.value() <= 0)
    return Invalid("node", n.name, "NIC bandwidth must be positive when the node has NICs");
  if (n.cpu_cores < 0) return Invalid("node", n.name, "cpu_cores must not be negative");
  if (n.gpus_per_pcie_switch < 0 || n.gpus_per_pcie_switch > n.gpus_per_node)
    return Invalid("node", n.name, "gpus_per_pcie_switch must be 0..gpus_per_node");
  if (n.host_memory.value() < 0 || n.host_memory_bandwidth.value() < 0 || n.local_disk.value() < 0 ||
      n.disk_bandwidth.value() < 0)
    return Invalid("node", n.name, "host memory, disk sizes and bandwidths must not be negative");
  return Status::Ok();
}

Status ValidateNetwork(const NetworkSpec& n) {
  if (n.name.empty()) return Error::InvalidArgument("network entry without a name");
  if (n.link_bandwidth.value() <= 0) return Invalid("network", n.name, "link bandwidth must be positive");
  if (n.latency < Duration::Zero()) return Invalid("network", n.name, "latency must not be negative");
  if (!(n.oversubscription >= 1.0))
    return Invalid("network", n.name, "oversubscription must be >= 1, found " + Num(n.oversubscription));
  return Status::Ok();
}

Status Catalog::AddGpu(GpuSpec gpu) {
  DLSIM_RETURN_IF_ERROR(ValidateGpu(gpu));
  return gpus_.Add(std::move(gpu));
}

Status Catalog::AddNode(NodeSpec node) {
  DLSIM_RETURN_IF_ERROR(ValidateNode(node));
  return nodes_.Add(std::move(node));
}

Status Catalog::AddNetwork(NetworkSpec net) {
  DLSIM_RETURN_IF_ERROR(ValidateNetwork(net));
  return networks_.Add(std::move(net));
}

Result<const GpuSpec*> Catalog::FindGpu(std::string_view name_or_alias) const {
  return gpus_.Find(name_or_alias);
}
Result<const NodeSpec*> Catalog::FindNode(std::string_view name_or_alias) const {
  return nodes_.Find(name_or_alias);
}
Result<const NetworkSpec*> Catalog::FindNetwork(std::string_view name_or_alias) const {
  return networks_.Find(name_or_alias);
}

Status Catalog::CheckReferences() const {
  for (const NodeSpec* n : nodes_.Entries()) {
    if (auto g = gpus_.Find(n->gpu); !g.ok()) return Invalid("node", n->name, g.error().message);
    if (!n->network.empty()) {
      if (auto w = networks_.Find(n->network); !w.ok()) return Invalid("node", n->name, w.error().message);
    }
  }
  return Status::Ok();
}

}  // namespace dlsim::hw
