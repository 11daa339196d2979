// The hardware catalog's YAML (gpus:, nodes:, networks:) and LoadCatalogs.
#include "dlsim/io/catalog_loader.h"

#include <string>
#include <vector>

#include "catalog_entries.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/prediction_intervals_loader.h"
#include "dlsim/io/training_calibration_loader.h"

namespace dlsim::io {
namespace {

using internal::AddAll;
using internal::Field;
using internal::Pending;
using internal::StartEntry;

// The existing entry the `name:` of `e` refers to (canonical or alias), or nullptr; an absent
// name is reported by StartEntry.
template <typename Spec>
const Spec* Existing(const MapReader& e, Result<const Spec*> (hw::Catalog::*find)(std::string_view) const,
                     const hw::Catalog& cat) {
  auto name = e.Find<std::string>("name");
  if (!name) return nullptr;
  auto r = (cat.*find)(*name);
  return r.ok() ? *r : nullptr;
}

void ReadDenseTflops(const MapReader& e, hw::GpuSpec& g, bool is_new) {
  MapReader d = e.Section("dense_tflops");
  if (is_new && !d.present()) e.AddError("dense_tflops", "missing required key 'dense_tflops'");
  for (hw::DType t : hw::kAllDTypes) {
    const std::string key(hw::DTypeName(t));
    const double cur = g.Peak(t).ToTFLOPS();
    g.dense_peak[static_cast<int>(t)] =
        TFLOPS(t == hw::DType::kFp32 ? Field<double>(d, key, cur, is_new && d.present(), limits::kFp32Tflops)
                                     : d.Get<double>(key, cur, limits::kTflops));
  }
  d.Finish();
}

// The shares of the dense peaks the part sustains (optional; each in (0, 1]).
void ReadSustainedFraction(const MapReader& e, hw::GpuSpec& g) {
  MapReader d = e.Section("sustained_fraction");
  if (!d.present()) return;
  for (hw::DType t : hw::kAllDTypes) {
    const std::string key(hw::DTypeName(t));
    double& f = g.sustained_fraction[static_cast<int>(t)];
    if (auto v = d.Find<double>(key, Range::Between(0.05, 1.0))) f = *v;
  }
  d.Finish();
}

std::vector<hw::MigProfile> ReadMig(const MapReader& e) {
  std::vector<hw::MigProfile> out;
  for (const MapReader& m : e.SectionList("mig")) {
    hw::MigProfile p;
    p.name = m.Require<std::string>("name").value_or("");
    p.compute_slices = m.Require<int>("compute_slices", Range::Between(1, 7)).value_or(0);
    p.memory_slices = m.Require<int>("memory_slices", Range::Between(1, 8)).value_or(0);
    p.sms = m.Require<int>("sms", limits::kSmCount).value_or(0);
    p.memory = GiB(m.Require<double>("memory_gib", limits::kMemoryGib).value_or(0));
    p.max_instances = m.Require<int>("max_instances", Range::Between(1, 7)).value_or(0);
    p.start_slices = m.FindList<int>("start_slices", Range::Between(0, 7)).value_or(std::vector<int>{});
    if (!m.Has("start_slices")) m.AddError("start_slices", "missing required key 'start_slices'");
    m.Finish();
    out.push_back(std::move(p));
  }
  return out;
}

// The SM clocks of entry `e` (max_sm_clock_mhz, sustained_sm_clock_mhz: hw/sm_clock.h); the sustained one at
// most the maximum.
void ReadSmClocks(const MapReader& e, hw::GpuSpec& g) {
  g.max_sm_clock_mhz = e.Get<double>("max_sm_clock_mhz", g.max_sm_clock_mhz, limits::kSmClockMhz);
  g.sustained_sm_clock_mhz =
      e.Get<double>("sustained_sm_clock_mhz", g.sustained_sm_clock_mhz, limits::kSmClockMhz);
  if (g.sustained_sm_clock_mhz > 0 && !(g.sustained_sm_clock_mhz <= g.max_sm_clock_mhz))
    e.AddError("sustained_sm_clock_mhz", "expected at most max_sm_clock_mhz (" +
                                             std::to_string(static_cast<int>(g.max_sm_clock_mhz)) + " MHz)");
}

// Shared memory, registers and blocks per SM (the tile GEMM model's occupancy) and L2 bandwidth.
void ReadSmLimits(const MapReader& e, hw::GpuSpec& g) {
  g.smem_per_sm =
      KiB(e.Get<double>("smem_per_sm_kib", g.smem_per_sm.ToBytes() / 1024, Range::Between(16, 4096)));
  g.smem_per_block =
      KiB(e.Get<double>("smem_per_block_kib", g.smem_per_block.ToBytes() / 1024, Range::Between(16, 4096)));
  g.regs_per_sm = e.Get<int>("regs_per_sm", g.regs_per_sm, Range::Between(8192, 1 << 20));
  g.max_blocks_per_sm = e.Get<int>("max_blocks_per_sm", g.max_blocks_per_sm, Range::Between(1, 64));
  g.l2_bandwidth =
      GBps(e.Get<double>("l2_bandwidth_gb_per_s", g.l2_bandwidth.ToGBps(), limits::kBandwidthGBps));
  if (g.smem_per_block.value() > g.smem_per_sm.value())
    e.AddError("smem_per_block_kib", "must not exceed smem_per_sm_kib");
}

hw::GpuSpec ReadGpu(const MapReader& e, const hw::GpuSpec* found) {
  const bool is_new = found == nullptr;
  hw::GpuSpec g = StartEntry(e, found);
  g.architecture = e.Get<std::string>("architecture", g.architecture);
  ReadDenseTflops(e, g, is_new);
  ReadSustainedFraction(e, g);
  g.hbm_capacity = GiB(Field<double>(e, "memory_gib", g.hbm_capacity.ToGiB(), is_new, limits::kMemoryGib));
  g.hbm_bandwidth = GBps(Field<double>(e, "memory_bandwidth_gb_per_s", g.hbm_bandwidth.ToGBps(), is_new,
                                       limits::kBandwidthGBps));
  g.sm_count = Field<int>(e, "sm_count", g.sm_count, is_new, limits::kSmCount);
  g.max_threads_per_sm = e.Get<int>("max_threads_per_sm", g.max_threads_per_sm, Range::Between(32, 4096));
  g.l2_size = MiB(e.Get<double>("l2_mib", g.l2_size.ToMiB(), limits::kCacheMib));
  ReadSmLimits(e, g);
  g.nvlink_bandwidth = GBps(e.Get<double>("nvlink_gb_per_s", g.nvlink_bandwidth.ToGBps(), limits::kLinkGBps));
  g.pcie_gen = e.Get<int>("pcie_gen", g.pcie_gen, Range::Between(0, 6));
  g.pcie_lanes = e.Get<int>("pcie_lanes", g.pcie_lanes, Range::Between(0, 32));
  g.power_watts = e.Get<double>("power_w", g.power_watts, limits::kPowerWatts);
  ReadSmClocks(e, g);
  g.nvls = e.Get<bool>("nvls", g.nvls);
  if (e.Has("mig")) g.mig = ReadMig(e);
  e.Allow({"mig"});
  e.Finish();
  return g;
}

// 0 ("none") is a bandwidth only where nothing crosses the link: a one-GPU node's intra-node fabric,
// the NICs of a node without NICs. Recorded at the key, with the range that applies here.
void CheckNodeLinks(const MapReader& e, const hw::NodeSpec& n) {
  if (n.intra_bandwidth.value() <= 0 && n.gpus_per_node > 1 && e.Has("intra_gb_per_s"))
    e.AddError("intra_gb_per_s",
               "expected a positive bandwidth, found 0; allowed: 0.001..10000000 (0 only for a "
               "node of one GPU; this one has " +
                   std::to_string(n.gpus_per_node) + ")");
  if (n.nic_bandwidth.value() <= 0 && n.nics_per_node > 0 && e.Has("nic_gbps"))
    e.AddError("nic_gbps",
               "expected a positive bandwidth, found 0; allowed: 0.001..10000000 (0 only with "
               "nics_per_node: 0; this node has " +
                   std::to_string(n.nics_per_node) + ")");
}

hw::NodeSpec ReadNode(const MapReader& e, const hw::NodeSpec* found) {
  const bool is_new = found == nullptr;
  hw::NodeSpec n = StartEntry(e, found);
  n.gpu = Field<std::string>(e, "gpu", n.gpu, is_new);
  n.gpus_per_node = Field<int>(e, "gpus_per_node", n.gpus_per_node, is_new, limits::kGpusPerNode);
  n.fabric = e.GetEnum("fabric", n.fabric,
                       {{"nvswitch", hw::IntraNodeFabric::kNvSwitch},
                        {"nvlink-pairwise", hw::IntraNodeFabric::kNvLinkPairwise},
                        {"pcie", hw::IntraNodeFabric::kPcie}});
  n.intra_bandwidth =
      GBps(Field<double>(e, "intra_gb_per_s", n.intra_bandwidth.ToGBps(), is_new, limits::kLinkGBps));
  n.nics_per_node = e.Get<int>("nics_per_node", n.nics_per_node, limits::kNicsPerNode);
  n.nic_bandwidth = Gbps(e.Get<double>("nic_gbps", n.nic_bandwidth.ToGbps(), limits::kLinkGbps));
  n.network = e.Get<std::string>("network", n.network);
  n.host_memory = GiB(e.Get<double>("host_memory_gib", n.host_memory.ToGiB(), limits::kCacheMib));
  n.host_memory_bandwidth = GBps(
      e.Get<double>("host_memory_bandwidth_gb_per_s", n.host_memory_bandwidth.ToGBps(), limits::kLinkGBps));
  n.cpu_cores = e.Get<int>("cpu_cores", n.cpu_cores, limits::kCount);
  n.gpus_per_pcie_switch = e.Get<int>("gpus_per_pcie_switch", n.gpus_per_pcie_switch, limits::kCount);
  n.local_disk = GB(1000 * e.Get<double>("local_disk_tb", n.local_disk.ToGB() / 1000, limits::kDiskTb));
  n.disk_bandwidth =
      GBps(e.Get<double>("disk_bandwidth_gb_per_s", n.disk_bandwidth.ToGBps(), limits::kLinkGBps));
  n.disk_read_iops = 1000 * e.Get<double>("disk_read_kiops", n.disk_read_iops / 1000, limits::kDiskKiops);
  CheckNodeLinks(e, n);
  e.Finish();
  return n;
}

hw::NetworkSpec ReadNetwork(const MapReader& e, const hw::NetworkSpec* found) {
  const bool is_new = found == nullptr;
  hw::NetworkSpec w = StartEntry(e, found);
  if (auto i = e.FindChoice("technology", {"infiniband", "roce", "ethernet"})) {
    w.technology = std::vector<std::string>{"infiniband", "roce", "ethernet"}[*i];
  }
  w.link_bandwidth =
      Gbps(Field<double>(e, "link_gbps", w.link_bandwidth.ToGbps(), is_new, limits::kNetworkLinkGbps));
  w.latency = Micros(Field<double>(e, "latency_us", w.latency.ToMicros(), is_new, limits::kLatencyUs));
  w.topology = e.GetEnum(
      "topology", w.topology,
      {{"fat-tree", hw::NetworkTopology::kFatTree}, {"rail-optimized", hw::NetworkTopology::kRailOptimized}});
  w.oversubscription = e.Get<double>("oversubscription", w.oversubscription, limits::kOversubscription);
  e.Finish();
  return w;
}

// A node's gpu and network must name catalog entries; they are made canonical.
Status ResolveNodeReferences(std::vector<Pending<hw::NodeSpec>>& nodes, const hw::Catalog& cat) {
  for (auto& p : nodes) {
    auto g = cat.FindGpu(p.spec.gpu);
    if (!g.ok()) return p.entry.ErrorAt("gpu", g.error().message);
    p.spec.gpu = (*g)->name;
    if (p.spec.network.empty()) continue;
    auto w = cat.FindNetwork(p.spec.network);
    if (!w.ok()) return p.entry.ErrorAt("network", w.error().message);
    p.spec.network = (*w)->name;
  }
  return Status::Ok();
}

Status MergeDocument(const Document& doc, Catalogs& cat) {
  MapReader root = doc.Root();
  hw::Catalog& hwc = cat.hardware;
  std::vector<Pending<hw::GpuSpec>> gpus;
  for (const MapReader& e : root.SectionList("gpus")) {
    gpus.push_back({e, ReadGpu(e, Existing(e, &hw::Catalog::FindGpu, hwc))});
  }
  std::vector<Pending<hw::NetworkSpec>> networks;
  for (const MapReader& e : root.SectionList("networks")) {
    networks.push_back({e, ReadNetwork(e, Existing(e, &hw::Catalog::FindNetwork, hwc))});
  }
  std::vector<Pending<hw::NodeSpec>> nodes;
  for (const MapReader& e : root.SectionList("nodes")) {
    nodes.push_back({e, ReadNode(e, Existing(e, &hw::Catalog::FindNode, hwc))});
  }
  auto models = internal::ReadModelEntries(root, cat.models);
  auto multimodal = internal::ReadMultimodalEntries(root, cat.multimodal);
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());

  DLSIM_RETURN_IF_ERROR(AddAll(gpus, [&](hw::GpuSpec& s) { return hwc.AddGpu(std::move(s)); }));
  DLSIM_RETURN_IF_ERROR(AddAll(networks, [&](hw::NetworkSpec& s) { return hwc.AddNetwork(std::move(s)); }));
  DLSIM_RETURN_IF_ERROR(ResolveNodeReferences(nodes, hwc));
  DLSIM_RETURN_IF_ERROR(AddAll(nodes, [&](hw::NodeSpec& s) { return hwc.AddNode(std::move(s)); }));
  DLSIM_RETURN_IF_ERROR(AddAll(models, [&](model::ModelSpec& s) { return cat.models.Add(std::move(s)); }));
  DLSIM_RETURN_IF_ERROR(internal::ResolveMultimodalLlms(multimodal, cat.models));
  return AddAll(multimodal, [&](model::MultimodalSpec& s) { return cat.multimodal.Add(std::move(s)); });
}

}  // namespace

Status MergeCatalogText(std::string_view text, const std::string& file_name, Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  return MergeDocument(doc, catalogs);
}

Status MergeCatalogFile(const std::string& path, Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return MergeCatalogText(text, path, catalogs);
}

Result<Catalogs> LoadCatalogs(const std::vector<std::string>& extra_files,
                              const std::vector<std::string>& calibration_files) {
  Catalogs cat;
  const std::pair<const char*, std::string_view> embedded[] = {
      {"data/catalog/gpus.yaml (embedded)", embedded::GpusYaml()},
      {"data/catalog/networks.yaml (embedded)", embedded::NetworksYaml()},
      {"data/catalog/nodes.yaml (embedded)", embedded::NodesYaml()},
      {"data/catalog/models.yaml (embedded)", embedded::ModelsYaml()},
  };
  for (const auto& [name, text] : embedded) DLSIM_RETURN_IF_ERROR(MergeCatalogText(text, name, cat));
  for (const auto& path : extra_files) DLSIM_RETURN_IF_ERROR(MergeCatalogFile(path, cat));
  DLSIM_ASSIGN_OR_RETURN(cat.compute, LoadDefaultComputeCalibration());
  DLSIM_ASSIGN_OR_RETURN(cat.network, LoadDefaultNetworkCalibration());
  DLSIM_ASSIGN_OR_RETURN(cat.training, LoadDefaultTrainingCalibration());
  DLSIM_ASSIGN_OR_RETURN(cat.intervals, LoadDefaultPredictionIntervals());
  for (const auto& path : calibration_files) {
    DLSIM_ASSIGN_OR_RETURN(cost::TrainingCalibration over, LoadTrainingCalibrationFile(path));
    cat.training = cost::Overlay(cat.training, over);
    // The user's own kernel rates reach serving too (it prices with `compute`, not the training layer);
    // training lays the same values over them again, which changes nothing.
    cat.compute = over.Apply(cat.compute, nullptr);
  }
  return cat;
}

}  // namespace dlsim::io
