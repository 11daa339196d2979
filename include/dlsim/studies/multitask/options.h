// Options of one multi-task training-step comparison (multitask/simulate.h): plain structs with
// defaults, read from YAML at the edge (io/multitask_workload.h).
#ifndef DLSIM_STUDIES_MULTITASK_OPTIONS_H_
#define DLSIM_STUDIES_MULTITASK_OPTIONS_H_

#include <string>

#include "dlsim/studies/multitask/scalability.h"
#include "dlsim/studies/multitask/wavefront.h"
#include "dlsim/studies/multitask/workload.h"
#include "dlsim/train/options.h"

namespace dlsim::multitask {

struct MultitaskOptions {
  Workload workload;
  // hardware.gpus is the device budget; the node sets GPUs per node and the network.
  train::HardwareOptions hardware;
  // NVLink bandwidth per GPU per direction in GB/s; 0: the node's (an A800 is an A100 with 200).
  double intra_gb_per_s = 0;
  PricingOptions pricing;
  Placement placement = Placement::kMinMovement;
  std::string compute_model = "roofline";  // a compute-model registry name
};

}  // namespace dlsim::multitask

#endif  // DLSIM_STUDIES_MULTITASK_OPTIONS_H_
