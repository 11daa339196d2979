// Calibration constants of the collective-communication models.
//
// Few constants, each with a physical meaning, fitted on nccl-tests tables (see
// data/calibration/network.yaml for the values, their sources and the fit error, and
// docs/network-model.md for the formulas). Read from YAML by io::LoadNetworkCalibration();
// the defaults below are uncalibrated physical guesses so a model works without a file.
//
//   dlsim::net::NetworkCalibration cal;                    // defaults
//   const dlsim::net::LinkCalibration& l = cal.Intra("hopper", /*pcie=*/false);
//
// Plain value type; thread-safe for concurrent const use.
#ifndef DLSIM_NET_CALIBRATION_H_
#define DLSIM_NET_CALIBRATION_H_

#include <map>
#include <string>
#include <string_view>

#include "dlsim/core/units.h"

namespace dlsim::net {

// How well one class of link (NVLink of one GPU generation, PCIe, the NICs) is used by NCCL.
//
// Achieved bus bandwidth for a message of S bytes is
//   peak * efficiency * S^p / (S^p + ramp_half_size^p),   p = ramp_exponent,
// and every algorithm step pays `step_latency` on top of the fabric's wire latency.
struct LinkCalibration {
  double efficiency = 0.8;       // achievable fraction of the per-direction link bandwidth, large messages
  Bytes ramp_half_size = MB(4);  // message size at which half of the peak bus bandwidth is reached
  double ramp_exponent = 0.75;   // steepness of the small-message ramp (1: pure fixed overhead)
  Duration step_latency = Micros(1);  // software cost of one algorithm step (proxy, flags, kernel loop)
  // Ring bus bandwidth of small groups falls short of large ones: factor (1 - small_group_loss / n^2).
  double small_group_loss = 0.0;
};

struct NetworkCalibration {
  // NVLink / NVSwitch calibration by GPU architecture ("ampere", "hopper", ...). A missing
  // architecture uses `nvlink_default`.
  std::map<std::string, LinkCalibration, std::less<>> nvlink;
  LinkCalibration nvlink_default;
  LinkCalibration pcie{0.8, MB(2), 0.75, Micros(2), 0.0};
  LinkCalibration inter_node{0.75, MB(4), 0.75, Micros(3), 0.0};
  // NVLink SHARP all-reduce: fraction of the ideal multimem rate n/(n+1) * link bandwidth achieved.
  double nvls_efficiency = 0.68;
  // Double binary tree all-reduce: bus bandwidth relative to ring on the same links.
  double tree_efficiency = 0.9;
  // Fixed cost of launching one collective (kernel launch, enqueue), paid once per call.
  Duration launch_overhead = Micros(5);

  // The calibration of the intra-node links of a GPU of `architecture`.
  const LinkCalibration& Intra(std::string_view architecture, bool pcie_only) const {
    if (pcie_only) return pcie;
    auto it = nvlink.find(architecture);
    return it == nvlink.end() ? nvlink_default : it->second;
  }
};

}  // namespace dlsim::net

#endif  // DLSIM_NET_CALIBRATION_H_
