// Measured collective tables used to fit and check the network calibration.
#ifndef DLSIM_TOOLS_FIT_NET_NETWORK_TABLES_H_
#define DLSIM_TOOLS_FIT_NET_NETWORK_TABLES_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/net/collective.h"

namespace dlsim::fitnet {

struct Sample {
  double bytes = 0;    // nccl-tests size convention
  double seconds = 0;  // measured
};

struct Table {
  std::string name;  // e.g. "nccl/a100/allreduce_8gpu"
  net::Collective collective = net::Collective::kAllReduce;
  net::GroupLayout layout;
  net::Fabric fabric;
  bool fitted = true;  // false: reported only
  std::string note;
  std::vector<Sample> samples;
};

// DGX fabrics as the tables were measured on (per-direction bandwidths from the vendor sheets).
net::Fabric DgxA100();  // NVLink3 via NVSwitch, 300 GB/s; 8x HDR 200 Gb/s
net::Fabric DgxH100();  // NVLink4 via NVSwitch, 450 GB/s, NVLS; 8x NDR 400 Gb/s
net::Fabric DgxV100();  // NVLink2 hybrid cube mesh, 6 x 25 GB/s

// Reads every table under `profiles` (the shared data/profiles folder).
Result<std::vector<Table>> LoadTables(const std::string& profiles);

}  // namespace dlsim::fitnet

#endif  // DLSIM_TOOLS_FIT_NET_NETWORK_TABLES_H_
