#include "dlsim/train/context_builder.h"

#include "dlsim/hw/sm_clock.h"

namespace dlsim::train {

Result<std::unique_ptr<OwnedStepContext>> MakeStepContext(const TrainOptions& o, const hw::Catalog& catalog,
                                                          const cost::ComputeCalibration& compute_cal,
                                                          const net::NetworkCalibration& net_cal,
                                                          const ModelChoice& choice,
                                                          const cost::TrainingCalibration* training) {
  auto owned = std::make_unique<OwnedStepContext>();
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, catalog.FindGpu(o.hardware.gpu));
  owned->gpu = *gpu;
  if (o.hardware.sm_clock_mhz) {
    const Status locked = hw::LockSmClock(*o.hardware.sm_clock_mhz, owned->gpu);
    if (!locked.ok()) return Error::InvalidArgument("hardware.sm_clock_mhz: " + locked.error().message);
  }
  hw::NodeSpec node;
  if (!o.hardware.node.empty()) {
    DLSIM_ASSIGN_OR_RETURN(const hw::NodeSpec* n, catalog.FindNode(o.hardware.node));
    node = *n;
  } else {
    node.fabric =
        gpu->nvlink_bandwidth.value() > 0 ? hw::IntraNodeFabric::kNvSwitch : hw::IntraNodeFabric::kPcie;
  }
  node.gpus_per_node = o.hardware.gpus_per_node;
  hw::NetworkSpec network;
  if (!o.hardware.network.empty()) {
    DLSIM_ASSIGN_OR_RETURN(const hw::NetworkSpec* n, catalog.FindNetwork(o.hardware.network));
    network = *n;
  }
  net::CollectiveRegistry comms("collective-model");
  net::RegisterCollectiveModels(comms);
  DLSIM_ASSIGN_OR_RETURN(owned->comm, comms.Create(choice.collective, net_cal));
  cost::ComputeModelRegistry computes("compute-model");
  cost::RegisterComputeModels(computes);
  // The stack's kernel rates under the training constants: the shipped file's and a user's calibration win.
  // Laid over the kernel-level file in one pass, so that an architecture compute.yaml lacks gets one entry
  // holding both (TrainingCalibration::Apply).
  cost::TrainingCalibration stack;
  stack.archs = o.training.stack_calibration;
  const cost::TrainingCalibration constants = training ? cost::Overlay(stack, *training) : stack;
  const cost::ComputeCalibration cal =
      constants.archs.empty() ? compute_cal : constants.Apply(compute_cal, &owned->gpu);
  DLSIM_ASSIGN_OR_RETURN(
      owned->compute,
      computes.Create(choice.compute.empty() ? o.compute_model : choice.compute, owned->gpu, cal));
  StepContext& ctx = owned->ctx;
  ctx.gpu = &owned->gpu;
  ctx.gpus_per_node = o.hardware.gpus_per_node;
  ctx.fabric =
      net::MakeFabric(owned->gpu, node, network, o.hardware.nics_per_node, Gbps(o.hardware.nic_gbps));
  ctx.compute = owned->compute.get();
  if (training && training->layer_host_time) ctx.layer_host_time = *training->layer_host_time;
  // A named stack's measured host time replaces the shipped one (fitted on Megatron/NeMo sets), not one the
  // user calibrated (`--calibration`).
  const bool user_host =
      training && training->layer_host_time && training->layer_host_source != cost::kShippedTrainingFile;
  if (o.training.stack_layer_host_us && !user_host)
    ctx.layer_host_time = Seconds(*o.training.stack_layer_host_us * 1e-6);
  if (training && training->memory_overhead) ctx.framework_overhead = *training->memory_overhead;
  ctx.comm = owned->comm.get();

  return owned;
}

Result<std::unique_ptr<OwnedStepContext>> MakeStepContext(const TrainOptions& o,
                                                          const catalog::Catalogs& catalogs,
                                                          const ModelChoice& choice) {
  return MakeStepContext(o, catalogs.hardware, catalogs.compute, catalogs.network, choice,
                         &catalogs.training);
}

}  // namespace dlsim::train
