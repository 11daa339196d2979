#include "dlsim/cost/prediction_intervals.h"

#include <algorithm>
#include <cmath>

namespace dlsim::cost {

bool Lists(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

const IntervalRegime* PredictionIntervals::Find(std::string_view name) const {
  for (const IntervalRegime& r : regimes)
    if (r.name == name) return &r;
  return nullptr;
}

std::pair<double, double> PredictionIntervals::WidenedOutside(const IntervalRegime& r) const {
  return {std::pow(r.low, outside_widen), std::pow(r.high, outside_widen)};
}

}  // namespace dlsim::cost
