#include "dlsim/cost/prediction_intervals.h"

#include <algorithm>

namespace dlsim::cost {

bool Lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

const IntervalRegime* PredictionIntervals::Find(std::string_view name) const {
  for (const IntervalRegime& r : regimes)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace dlsim::cost
