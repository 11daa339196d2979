// A catalog node sets the hardware defaults of a training job: its GPU, GPUs and NICs per node,
// NIC bandwidth and network. The scenario reader applies it before the file's own keys; code
// that builds options directly (reproductions, the planner's tests) calls the same function.
//
//   train::HardwareOptions h;
//   train::ApplyNodeDefaults(**catalog.FindNode("dgx-h100"), h);   // h.gpu = "h100-sxm5-80gb", ...
#ifndef DLSIM_TRAIN_NODE_DEFAULTS_H_
#define DLSIM_TRAIN_NODE_DEFAULTS_H_

#include "dlsim/hw/node.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

// Sets node, gpu, gpus_per_node, nics_per_node, nic_gbps and (when the node names one) network.
void ApplyNodeDefaults(const hw::NodeSpec& node, HardwareOptions& hardware);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_NODE_DEFAULTS_H_
