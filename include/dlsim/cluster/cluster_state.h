// What is free in the cluster right now: per GPU, the free share in milli-GPUs (1000 = a whole
// free GPU); per node, free CPU and memory; per GPU type, the total free whole GPUs. The engine
// and the placement policies read it; only Allocate/Release change it.
//
//   cluster::ClusterState s(spec);
//   cluster::Allocation a = ...;          // chosen by a PlacementPolicy
//   s.Allocate(job, a);  ...  s.Release(job, a);
//
// Not thread-safe.
#ifndef DLSIM_CLUSTER_CLUSTER_STATE_H_
#define DLSIM_CLUSTER_CLUSTER_STATE_H_

#include <cstdint>
#include <vector>

#include "dlsim/cluster/cluster_spec.h"
#include "dlsim/cluster/job.h"

namespace dlsim::cluster {

// One GPU (or a share of one) given to a job.
struct GpuGrant {
  int32_t node = 0;
  int16_t gpu = 0;  // index within the node
  int16_t milli = 1000;
};

// A job's placement: the GPUs it holds, sorted by (node, gpu). A CPU-only job holds one grant
// with milli 0 on the node whose CPU it uses.
struct Allocation {
  std::vector<GpuGrant> grants;
  int NodesSpanned() const;
};

// The shape of an allocation that a job's speed depends on: the GPU type and how many GPUs it
// has on each node it spans (sorted descending), e.g. {a100, {8, 8}} or {a100, {4, 2, 2}}.
struct PlacementShape {
  int gpu_type = 0;
  std::vector<int> gpus_per_node;
  bool operator==(const PlacementShape&) const = default;
  bool operator<(const PlacementShape& o) const {
    return gpu_type != o.gpu_type ? gpu_type < o.gpu_type : gpus_per_node < o.gpus_per_node;
  }
};

class ClusterState {
 public:
  explicit ClusterState(const ClusterSpec& spec);

  const ClusterSpec& spec() const { return *spec_; }
  int free_milli(int node, int gpu) const { return gpu_free_[offset_[node] + gpu]; }
  int free_whole(int node) const { return node_free_whole_[node]; }
  int64_t free_cpu(int node) const { return cpu_free_[node]; }
  int64_t free_memory(int node) const { return mem_free_[node]; }
  // Free whole GPUs of `type` across the cluster.
  int64_t free_whole_of_type(int type) const { return type_free_whole_[type]; }
  int64_t free_whole_total() const { return free_whole_total_; }
  int64_t busy_milli() const { return busy_milli_; }
  // Whole free GPUs the job could use (of its allowed types), for a quick "can it fit" test.
  int64_t FreeWholeFor(const JobSpec& job) const;
  // Does `node` satisfy the job's GPU type constraint?
  bool TypeAllowed(const JobSpec& job, int node) const;
  // Does `node` have the CPU and memory for the job (when both are tracked)?
  bool HostFits(const JobSpec& job, int node) const;

  // Takes an idle node out of service (its GPUs are then neither free nor busy) or puts it back
  // (capacity loaning, capacity.h). Precondition for taking it out: no job holds any of its GPUs.
  void SetOnline(int node, bool online);
  bool online(int node) const { return !offline_[node]; }

  void Allocate(const JobSpec& job, const Allocation& a);
  void Release(const JobSpec& job, const Allocation& a);
  PlacementShape ShapeOf(const Allocation& a) const;

 private:
  void Change(const JobSpec& job, const Allocation& a, int sign);
  const ClusterSpec* spec_;
  std::vector<int32_t> offset_;  // first GPU of each node in gpu_free_
  std::vector<int16_t> gpu_free_;
  std::vector<int16_t> node_free_whole_;
  std::vector<int64_t> cpu_free_, mem_free_;
  std::vector<int64_t> type_free_whole_;
  std::vector<char> offline_;
  int64_t busy_milli_ = 0;
  int64_t free_whole_total_ = 0;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_CLUSTER_STATE_H_
