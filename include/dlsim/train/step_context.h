// What a training-step simulation runs on: the hardware specs and the cost models, already
// resolved from the catalogs and calibration files (no lookups, no files, no YAML here).
#ifndef DLSIM_TRAIN_STEP_CONTEXT_H_
#define DLSIM_TRAIN_STEP_CONTEXT_H_

#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/hw/node.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/net/collective.h"

namespace dlsim::train {

struct StepContext {
  const hw::GpuSpec* gpu = nullptr;
  int gpus_per_node = 8;
  net::Fabric fabric;
  const cost::ComputeModel* compute = nullptr;
  const net::CollectiveModel* comm = nullptr;
  // Memory the framework needs besides the model's tensors (CUDA context, cuBLAS/NCCL
  // workspaces, allocator fragmentation), per GPU.
  Bytes framework_overhead = GiB(2);
  // Host (CPU) time the training framework takes to issue one transformer layer's forward
  // kernels; the backward issues twice as many. Fitted end to end (data/calibration/training.yaml).
  Duration layer_host_time;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_STEP_CONTEXT_H_
