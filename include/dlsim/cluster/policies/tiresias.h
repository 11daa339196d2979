// Tiresias (Gu et al., NSDI'19) as the `tiresias` cluster policy: discretised 2D-LAS. Queue k holds
// jobs whose attained GPU-seconds lie between thresholds k-1 and k; lower queues first, FIFO
// (arrival) within a queue; a job demotes when its service crosses the next threshold; with
// starvation k > 0 a job that waited longer than k times its last run is promoted to queue 0.
#ifndef DLSIM_CLUSTER_POLICIES_TIRESIAS_H_
#define DLSIM_CLUSTER_POLICIES_TIRESIAS_H_

#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// Its `policy:` keys: queue_thresholds (GPU-seconds, strictly increasing; default {3200}) and
// starvation (0 off).
struct TiresiasParams {
  std::vector<double> queue_thresholds = {3200};
  double starvation = 0;
  static std::vector<ParamSpec> Keys();
  static TiresiasParams From(const ParamSet& set);
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_TIRESIAS_H_
