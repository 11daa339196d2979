// MIG (Multi-Instance GPU) as a resource: legal partitions of one GPU and what each instance gets.
//
// A MIG-capable GPU has 7 compute slices and 8 memory slices (A100, H100, H200). A GPU instance
// of profile P occupies P.memory_slices contiguous memory slices starting at one of
// P.start_slices (the placements `nvidia-smi mig -lgipp` lists) and P.compute_slices compute
// slices. A set of instances is legal when (1) every instance starts at an allowed slice and fits
// in 0..7, (2) no two instances share a memory slice, (3) the compute slices add up to at most
// 7, and (4) no profile appears more than its max_instances. The profiles come from the catalog
// (data/catalog/gpus.yaml, with their sources).
//
//   const hw::GpuSpec& a100 = ...;
//   auto p = hw::MigPartition::Place(a100, {"4g.40gb", "3g.40gb"});   // Result<MigPartition>
//   auto all = hw::EnumerateMigPartitions(a100, {.maximal_only = true});
//   hw::GpuSpec slice = hw::MigInstanceSpec(a100, *a100.FindMigProfile("3g.40gb"));
//
// What an instance gets (MigInstanceSpec): its profile's SMs (a MIG-mode A100 exposes 7 x 14 =
// 98 SMs at 7g against 108 with MIG disabled), tensor and vector peaks in proportion to those
// SMs (same clock), its usable memory, and memory_slices/8 of the HBM bandwidth and of the L2
// (each memory slice is one eighth of the memory controllers with their L2 banks, as NVIDIA's MIG
// user guide describes the split). Pure functions and values; thread-safe.
#ifndef DLSIM_HW_MIG_H_
#define DLSIM_HW_MIG_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::hw {

inline constexpr int kMigComputeSlices = 7;
inline constexpr int kMigMemorySlices = 8;

// One placed GPU instance: `profile` indexes GpuSpec::mig, `start` is its first memory slice.
struct MigInstance {
  int profile = 0;
  int start = 0;
  bool operator==(const MigInstance&) const = default;
};

// A legal set of instances on one GPU, ordered by start slice. Only the factories build one, so
// every MigPartition is legal for the GpuSpec it was built with (kept by value: a copy of the
// profile names, no borrowed pointer).
class MigPartition {
 public:
  // A legal placement of the multiset `profiles` (names as in GpuSpec::mig, repeated for several
  // instances), the first in start-slice order. Errors: kInvalidArgument when the GPU has no MIG
  // or a name is unknown (the message lists the profiles); kInfeasible with the reason when the
  // multiset has no legal placement (too many compute or memory slices, more instances of a
  // profile than it allows, or start slices that cannot avoid each other).
  static Result<MigPartition> Place(const GpuSpec& gpu, const std::vector<std::string>& profiles);
  // Checks an explicit placement (any order). Errors as Place, naming the instance at fault.
  static Result<MigPartition> FromInstances(const GpuSpec& gpu, std::vector<MigInstance> instances);

  const std::vector<MigInstance>& instances() const { return instances_; }
  int size() const { return static_cast<int>(instances_.size()); }
  int compute_slices() const { return compute_slices_; }
  int memory_slices() const { return memory_slices_; }
  // Instances per profile, indexed like GpuSpec::mig.
  const std::vector<int>& counts() const { return counts_; }
  // "4g.40gb+2g.20gb+1g.10gb": instances by decreasing size (compute, then memory slices).
  const std::string& name() const { return name_; }
  // "4g.40gb@0 2g.20gb@4 1g.10gb@6": every instance with its start slice.
  std::string PlacementString() const;

 private:
  MigPartition() = default;
  std::vector<MigInstance> instances_;
  std::vector<int> counts_;
  std::vector<std::string> profile_names_;
  int compute_slices_ = 0, memory_slices_ = 0;
  std::string name_;
  friend MigPartition MakeMigPartition(const GpuSpec& gpu, std::vector<MigInstance> instances);
};

struct MigEnumerateOptions {
  // Profiles that may be used (names); empty = every profile of the GPU.
  std::vector<std::string> profiles;
  // Only partitions to which no allowed profile can be added.
  bool maximal_only = false;
};

// Every legal non-empty multiset of instances, one partition (its first placement) each,
// ordered by decreasing size of the largest instance, then the next, ... Errors: the GPU has no
// MIG, or an unknown profile name in `options.profiles`.
Result<std::vector<MigPartition>> EnumerateMigPartitions(const GpuSpec& gpu,
                                                         const MigEnumerateOptions& options = {});

// The profile that takes the whole GPU (7 compute slices), or nullptr without MIG.
const MigProfile* WholeGpuMigProfile(const GpuSpec& gpu);
// SMs a MIG-mode GPU exposes in all (those of the whole-GPU profile: 98 on A100); 0 without MIG.
int MigModeSms(const GpuSpec& gpu);

// The GpuSpec one instance of `profile` behaves as (see the file comment): name
// "<gpu>/<profile>", no MIG profiles of its own, no NVLink.
GpuSpec MigInstanceSpec(const GpuSpec& gpu, const MigProfile& profile);

}  // namespace dlsim::hw

#endif  // DLSIM_HW_MIG_H_
