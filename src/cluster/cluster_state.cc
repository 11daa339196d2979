#include "dlsim/cluster/cluster_state.h"

#include <algorithm>
#include <cassert>

namespace dlsim::cluster {

int Allocation::NodesSpanned() const {
  int n = 0;
  for (size_t i = 0; i < grants.size(); ++i)
    if (i == 0 || grants[i].node != grants[i - 1].node) ++n;
  return n;
}

ClusterState::ClusterState(const ClusterSpec& spec) : spec_(&spec) {
  const auto& nodes = spec.nodes();
  type_free_whole_.assign(spec.gpu_types().size(), 0);
  for (const ClusterNode& n : nodes) {
    offset_.push_back(static_cast<int32_t>(gpu_free_.size()));
    gpu_free_.insert(gpu_free_.end(), n.gpus, int16_t{1000});
    node_free_whole_.push_back(static_cast<int16_t>(n.gpus));
    cpu_free_.push_back(n.cpu_milli);
    mem_free_.push_back(n.memory_mib);
    type_free_whole_[n.gpu_type] += n.gpus;
    free_whole_total_ += n.gpus;
  }
  offline_.assign(nodes.size(), 0);
}

void ClusterState::SetOnline(int node, bool online) {
  if (online == !offline_[node]) return;
  const ClusterNode& n = spec_->nodes()[node];
  assert(online || node_free_whole_[node] == n.gpus);
  offline_[node] = !online;
  const int sign = online ? 1 : -1;
  for (int g = 0; g < n.gpus; ++g) gpu_free_[offset_[node] + g] = online ? int16_t{1000} : int16_t{0};
  node_free_whole_[node] = static_cast<int16_t>(online ? n.gpus : 0);
  type_free_whole_[n.gpu_type] += sign * n.gpus;
  free_whole_total_ += sign * n.gpus;
}

bool ClusterState::TypeAllowed(const JobSpec& job, int node) const {
  if (job.gpu_types.empty()) return true;
  const int type = spec_->nodes()[node].gpu_type;
  return std::find(job.gpu_types.begin(), job.gpu_types.end(), type) != job.gpu_types.end();
}

bool ClusterState::HostFits(const JobSpec& job, int node) const {
  const ClusterNode& n = spec_->nodes()[node];
  const bool cpu_ok = n.cpu_milli == 0 || job.cpu_milli <= cpu_free_[node];
  const bool mem_ok = n.memory_mib == 0 || job.memory_mib <= mem_free_[node];
  return cpu_ok && mem_ok;
}

int64_t ClusterState::FreeWholeFor(const JobSpec& job) const {
  if (job.gpu_types.empty()) return free_whole_total_;
  int64_t best = 0;  // one job's GPUs are all of one type
  for (int t : job.gpu_types) best = std::max(best, type_free_whole_[t]);
  return best;
}

void ClusterState::Change(const JobSpec& job, const Allocation& a, int sign) {
  for (const GpuGrant& g : a.grants) {
    if (g.milli == 0) continue;
    int16_t& free = gpu_free_[offset_[g.node] + g.gpu];
    const bool was_whole = free == 1000;
    free = static_cast<int16_t>(free - sign * g.milli);
    assert(free >= 0 && free <= 1000);
    const int delta = (free == 1000) - was_whole;
    node_free_whole_[g.node] = static_cast<int16_t>(node_free_whole_[g.node] + delta);
    type_free_whole_[spec_->nodes()[g.node].gpu_type] += delta;
    free_whole_total_ += delta;
    busy_milli_ += sign * g.milli;
  }
  // CPU and memory: a single-node job's are charged to its node (multi-node jobs' are not tracked).
  if (!a.grants.empty() && a.NodesSpanned() == 1) {
    const int node = a.grants.front().node;
    if (spec_->nodes()[node].cpu_milli > 0) cpu_free_[node] -= sign * job.cpu_milli;
    if (spec_->nodes()[node].memory_mib > 0) mem_free_[node] -= sign * job.memory_mib;
  }
}

void ClusterState::Allocate(const JobSpec& job, const Allocation& a) { Change(job, a, +1); }
void ClusterState::Release(const JobSpec& job, const Allocation& a) { Change(job, a, -1); }

PlacementShape ClusterState::ShapeOf(const Allocation& a) const {
  PlacementShape s;
  if (a.grants.empty()) return s;
  s.gpu_type = spec_->nodes()[a.grants.front().node].gpu_type;
  for (size_t i = 0; i < a.grants.size(); ++i) {
    if (i == 0 || a.grants[i].node != a.grants[i - 1].node) s.gpus_per_node.push_back(0);
    if (a.grants[i].milli > 0) ++s.gpus_per_node.back();
  }
  std::sort(s.gpus_per_node.rbegin(), s.gpus_per_node.rend());
  return s;
}

}  // namespace dlsim::cluster
