#include "dlsim/io/cost_section.h"

#include "dlsim/cost/compute_model.h"

namespace dlsim::io {

std::string ReadCostSection(const MapReader& cost, const std::string& def) {
  cost::ComputeModelRegistry reg("compute-model");
  cost::RegisterComputeModels(reg);
  const std::vector<std::string> names = reg.Names();
  const std::optional<size_t> i = cost.FindChoice("model", names);
  cost.Finish();
  return i ? names[*i] : def;
}

}  // namespace dlsim::io
