#include "dlsim/train/node_defaults.h"

namespace dlsim::train {

void ApplyNodeDefaults(const hw::NodeSpec& n, HardwareOptions& h) {
  h.node = n.name;
  h.gpu = n.gpu;
  h.gpus_per_node = n.gpus_per_node;
  h.nics_per_node = n.nics_per_node;
  h.nic_gbps = n.nic_bandwidth.ToGbps();
  if (!n.network.empty()) h.network = n.network;
}

}  // namespace dlsim::train
