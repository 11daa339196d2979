// The `cost:` section of train, plan and serve scenarios: which compute model prices kernels.
//
//   cost:
//     model: tile        # a compute-model registry name (`dlsim list compute-model`)
//
//   std::string model = io::ReadCostSection(root.Section("cost"), "roofline");
//
// Unknown names and unknown keys are errors recorded in the reader's document.
#ifndef DLSIM_IO_COST_SECTION_H_
#define DLSIM_IO_COST_SECTION_H_

#include <string>

#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {

// The compute-model name of `cost.model`, `def` when the section or key is absent.
std::string ReadCostSection(const MapReader& cost, const std::string& def);

}  // namespace dlsim::io

#endif  // DLSIM_IO_COST_SECTION_H_
