// Placement policies: which GPUs a job gets, given what is free. Behind the registry
// `cluster-placement` (`dlsim list cluster-placement`):
//   consolidated  fewest nodes: the node that best fits the whole job, else the emptiest nodes
//   first-fit     nodes in order, taking free GPUs until the job is covered
//   best-fit      the node that fits the job with the least left over; multi-node jobs fill the
//                 fullest nodes that still have room first
//   random        free GPUs drawn uniformly (seeded), as Tiresias' and Lucid's random placers
//   spread        one GPU per node, round-robin over the nodes with the most free GPUs
// Every policy honours the job's GPU type constraint (all GPUs of one type), its CPU and memory
// on single-node placements, and GPU sharing (a job with gpu_milli < 1000 goes to one GPU with
// at least that share free, the fullest such GPU first). A policy returns nullopt when the job
// does not fit now; it never changes the state.
#ifndef DLSIM_CLUSTER_PLACEMENT_H_
#define DLSIM_CLUSTER_PLACEMENT_H_

#include <memory>
#include <optional>

#include "dlsim/cluster/cluster_state.h"
#include "dlsim/core/registry.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual std::optional<Allocation> Place(const ClusterState& state, const JobSpec& job, Rng& rng) const = 0;
};

using PlacementRegistry = Registry<PlacementPolicy>;
void RegisterBuiltinPlacements(PlacementRegistry& reg);
const PlacementRegistry& BuiltinPlacements();

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_PLACEMENT_H_
