// The common frame of round-based allocation policies that place in arrival order (Aryl,
// EasyScale): an allocation every `round`, placements ordered by arrival. Private to the module.
#ifndef DLSIM_SRC_CLUSTER_POLICIES_ROUND_ALLOCATOR_H_
#define DLSIM_SRC_CLUSTER_POLICIES_ROUND_ALLOCATOR_H_

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

class RoundAllocator : public SchedulingPolicy, public GpuAllocator {
 public:
  explicit RoundAllocator(Duration round) : round_(round) {}
  bool Preemptive() const override { return true; }
  const GpuAllocator* allocator() const override { return this; }
  Duration Round() const override { return round_; }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override {
    return {job.arrival.ToSeconds(), 0};
  }

 private:
  Duration round_;
};

}  // namespace dlsim::cluster

#endif  // DLSIM_SRC_CLUSTER_POLICIES_ROUND_ALLOCATOR_H_
