#include "dlsim/cost/prediction_intervals.h"

namespace dlsim::cost {

const IntervalRegime* PredictionIntervals::Find(std::string_view name) const {
  for (const IntervalRegime& r : regimes)
    if (r.name == name) return &r;
  return nullptr;
}

}  // namespace dlsim::cost
