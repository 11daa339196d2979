// Prices a batch's counts (epoch.h) as stage times on one machine of the catalog: sampling on its
// CPU cores, feature gathering over each tier's link, the copy to the GPUs, GNN compute by the cost
// model. Internal to the gnn module; the formulas are listed in docs/gnn.md.
#ifndef DLSIM_SRC_GNN_STAGE_COST_H_
#define DLSIM_SRC_GNN_STAGE_COST_H_

#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/gnn/options.h"
#include "dlsim/gnn/pipeline.h"
#include "epoch.h"

namespace dlsim::gnn::internal {

// The resources of one machine, resolved from the catalog.
struct MachineSpec {
  int gpus = 1;
  int cores = 1;
  BytesPerSecond h2d;     // the GPUs' aggregate host-to-device bandwidth (PCIe switches shared)
  BytesPerSecond nvlink;  // aggregate peer bandwidth for cache shards (per GPU x GPUs)
  BytesPerSecond nic;     // the machine's NICs together
  Duration net_latency;   // one way
  BytesPerSecond host_memory;
  BytesPerSecond disk;
  double disk_iops = 0;  // 4 KiB random reads per second
  Bytes hbm, host_capacity, disk_capacity;
};

struct CoreSplit {
  int sample = 1, gather = 1;  // with isolation; without, both stages share all cores
};

// True when features or topology are read from the disk: the stages then include "disk" (the NVMe
// queue, shared by adjacency-list and feature reads), after sampling.
bool UsesDisk(const GnnOptions& o);

// Forward and backward of the GNN on one batch's blocks, on one GPU.
Duration BatchComputeTime(const BatchCounts& c, const ModelOptions& m, const FeatureSpec& f,
                          const cost::ComputeModel& model);

// Per-batch stage times of the machine. Without isolation: "sample+gather" (both on all cores,
// one after the other), ["disk"], "copy", "compute"; with it: "sample", ["disk"], "gather", "copy",
// "compute".
// `compute[b]` is batch b's GPU time on one GPU (the machine's GPUs share the batches).
StageTimes MachineStageTimes(const std::vector<BatchCounts>& batches, const std::vector<Duration>& compute,
                             const MachineSpec& m, const GnnOptions& o, bool isolation, CoreSplit split);

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_STAGE_COST_H_
