#include "dlsim/cluster/input_pipeline.h"

#include <algorithm>
#include <limits>

namespace dlsim::cluster {

InputShare InputShareOf(const JobSpec& job, const Allocation& a, const ClusterSpec& spec) {
  InputShare s;
  if (a.grants.empty()) return s;
  const bool single_node = a.NodesSpanned() == 1;
  for (const GpuGrant& g : a.grants) {
    const ClusterNode& node = spec.nodes()[g.node];
    const double part = node.gpus > 0 ? g.milli / 1000.0 / node.gpus : 0.0;
    s.local_cores += part * node.cpu_milli / 1000.0;
    s.nic_bytes_per_s += part * node.nic_bytes_per_s;
  }
  if (single_node && job.cpu_milli > 0) {  // an explicit request replaces the proportional share
    const ClusterNode& node = spec.nodes()[a.grants.front().node];
    s.local_cores = job.cpu_milli / 1000.0;
    if (node.gpus == 0) s.nic_bytes_per_s = node.nic_bytes_per_s;
  }
  return s;
}

double DemandRate(const DataWorkerDemand& d, double remote_cores) {
  if (!(d.core_s > 0)) return d.gpu_rate;
  const double remote = std::min(std::max(remote_cores, 0.0) / d.core_s, d.remote_cap);
  return std::min(d.gpu_rate, d.local_cores / d.core_s + remote);
}

double LocalCoresUsed(const DataWorkerDemand& d) { return std::min(d.local_cores, d.core_s * d.gpu_rate); }

double InputBoundRate(const JobSpec& job, double gpu_rate, const InputShare& share, double remote_cores) {
  if (!(job.input_core_s > 0) || !(share.local_cores > 0)) return gpu_rate;
  DataWorkerDemand d;
  d.gpu_rate = gpu_rate;
  d.core_s = job.input_core_s;
  d.local_cores = share.local_cores;
  d.remote_cap = share.nic_bytes_per_s > 0 && job.input_bytes > 0 ? share.nic_bytes_per_s / job.input_bytes
                                                                  : std::numeric_limits<double>::infinity();
  return DemandRate(d, remote_cores);
}

}  // namespace dlsim::cluster
