#include "dlsim/cluster/cluster_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "dlsim/core/csv.h"

namespace dlsim::cluster {

int ClusterSpec::InternGpuType(std::string_view name) {
  if (std::optional<int> t = FindGpuType(name)) return *t;
  gpu_types_.emplace_back(name);
  return static_cast<int>(gpu_types_.size()) - 1;
}

std::optional<int> ClusterSpec::FindGpuType(std::string_view name) const {
  for (size_t i = 0; i < gpu_types_.size(); ++i)
    if (gpu_types_[i] == name) return static_cast<int>(i);
  return std::nullopt;
}

int ClusterSpec::AddNodes(std::string_view name, std::string_view gpu_type, int count, int gpus,
                          int64_t cpu_milli, int64_t memory_mib, int nodes_per_rack) {
  const int first = static_cast<int>(nodes_.size());
  const int type = InternGpuType(gpu_type);
  const int first_rack = racks_;
  for (int i = 0; i < count; ++i) {
    const int rack = first_rack + (nodes_per_rack > 0 ? i / nodes_per_rack : 0);
    nodes_.push_back({fmt::format("{}-{:04d}", name, i), type, gpus, cpu_milli, memory_mib, rack});
    racks_ = std::max(racks_, rack + 1);
  }
  return first;
}

void ClusterSpec::SetNicBandwidth(int from, double bytes_per_s) {
  for (size_t n = static_cast<size_t>(std::max(from, 0)); n < nodes_.size(); ++n)
    nodes_[n].nic_bytes_per_s = bytes_per_s;
}

void ClusterSpec::AddNode(std::string name, std::string_view gpu_type, int gpus, int64_t cpu_milli,
                          int64_t memory_mib, int rack) {
  nodes_.push_back({std::move(name), InternGpuType(gpu_type), gpus, cpu_milli, memory_mib, rack});
  racks_ = std::max(racks_, rack + 1);
}

int64_t ClusterSpec::total_gpus() const {
  int64_t n = 0;
  for (const ClusterNode& node : nodes_) n += node.gpus;
  return n;
}

int64_t ClusterSpec::gpus_of_type(int type) const {
  int64_t n = 0;
  for (const ClusterNode& node : nodes_)
    if (node.gpu_type == type) n += node.gpus;
  return n;
}

namespace {

// A non-negative integer cell no larger than `max`.
Result<int64_t> IntegerCell(const CsvTable& t, size_t row, std::string_view column, double max) {
  DLSIM_ASSIGN_OR_RETURN(double v, t.Number(row, column));
  if (v < 0 || v > max || v != std::floor(v))
    return Error::InvalidArgument(
        fmt::format("{}:{}: column '{}': expected an integer in 0..{:.0f}, found {}", t.file_name,
                    t.row_lines[row], column, max, v));
  return static_cast<int64_t>(v);
}

}  // namespace

Result<ClusterSpec> ParseNodeList(std::string_view text, const std::string& file_name, int nodes_per_rack) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  for (std::string_view c : {"sn", "cpu_milli", "memory_mib", "gpu", "model"})
    DLSIM_RETURN_IF_ERROR(t.Column(c));
  if (t.rows.empty()) return Error::InvalidArgument(file_name + ": the node list has no rows");
  if (t.rows.size() > static_cast<size_t>(kMaxNodes))
    return Error::InvalidArgument(
        fmt::format("{}: {} nodes; at most {} are simulated", file_name, t.rows.size(), kMaxNodes));
  ClusterSpec spec;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(int64_t cpu, IntegerCell(t, r, "cpu_milli", 1e12));
    DLSIM_ASSIGN_OR_RETURN(int64_t mem, IntegerCell(t, r, "memory_mib", 1e12));
    DLSIM_ASSIGN_OR_RETURN(int64_t gpus, IntegerCell(t, r, "gpu", kMaxGpusPerNode));
    DLSIM_ASSIGN_OR_RETURN(std::string sn, t.Text(r, "sn"));
    DLSIM_ASSIGN_OR_RETURN(std::string model, t.Text(r, "model"));
    if (gpus > 0 && model.empty())
      return Error::InvalidArgument(fmt::format("{}:{}: column 'model': a node with GPUs needs a GPU model",
                                                file_name, t.row_lines[r]));
    const int rack = nodes_per_rack > 0 ? static_cast<int>(r) / nodes_per_rack : 0;
    spec.AddNode(sn, gpus > 0 ? model : "cpu", static_cast<int>(gpus), cpu, mem, rack);
  }
  return spec;
}

}  // namespace dlsim::cluster
