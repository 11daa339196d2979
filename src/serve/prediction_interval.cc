#include "dlsim/serve/prediction_interval.h"

#include <cmath>

namespace dlsim::serve {
namespace {

// The regime lists the engines and GPUs of the rows behind it (scripts/fit-intervals.py writes them).
bool Validated(const ServeOptions& o, const cost::IntervalRegime& serving) {
  return cost::Lists(serving.engines, o.engine) && cost::Lists(serving.gpus, o.gpu.name);
}

}  // namespace

std::optional<TpotInterval> TpotIntervalOf(const ServeOptions& o, const ServeResult& r,
                                           const cost::PredictionIntervals& table) {
  const cost::IntervalRegime* serving = table.Find("serving");
  const double tpot_s = r.metrics.tpot_s.mean;
  if (serving == nullptr || !r.feasible || r.metrics.tpot_requests == 0 || !(tpot_s > 0) ||
      !std::isfinite(tpot_s))
    return std::nullopt;
  if (Validated(o, *serving))
    return TpotInterval{tpot_s * serving->low, tpot_s * serving->high, table.level, "serving"};
  const double w = table.outside_widen;
  return TpotInterval{tpot_s * std::pow(serving->low, w), tpot_s * std::pow(serving->high, w), table.level,
                      "outside", true};
}

}  // namespace dlsim::serve
