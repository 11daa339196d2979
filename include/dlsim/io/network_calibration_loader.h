// Reads the collective-model calibration (data/calibration/network.yaml) into
// net::NetworkCalibration.
//
//   auto cal = dlsim::io::LoadDefaultNetworkCalibration();   // embedded copy
//   if (!cal.ok()) return cal.error();
//
// Format (every key optional; absent keys keep the NetworkCalibration defaults):
//   nvlink: {ampere: LINK, hopper: LINK, default: LINK, ...}   # by GPU architecture
//   pcie: LINK
//   inter_node: LINK
//   nvls_efficiency: 0.68
//   tree_efficiency: 0.9
//   launch_overhead_us: 5
//   fit: ...                    # informative (sources, MAPE); not read
// where LINK = {efficiency, ramp_half_mb (1e6 bytes), ramp_exponent, step_latency_us, small_group_loss}.
// Errors name file, line and key (see io/yaml_reader.h). Thread-safe: no shared state.
#ifndef DLSIM_IO_NETWORK_CALIBRATION_LOADER_H_
#define DLSIM_IO_NETWORK_CALIBRATION_LOADER_H_

#include <string>
#include <string_view>

#include "dlsim/core/result.h"
#include "dlsim/net/calibration.h"

namespace dlsim::io {

Result<net::NetworkCalibration> ParseNetworkCalibration(std::string_view yaml_text, std::string file_name);
Result<net::NetworkCalibration> LoadNetworkCalibrationFile(const std::string& path);
// The copy of data/calibration/network.yaml compiled into the binary.
Result<net::NetworkCalibration> LoadDefaultNetworkCalibration();

}  // namespace dlsim::io

#endif  // DLSIM_IO_NETWORK_CALIBRATION_LOADER_H_
