#include "dlsim/train/prediction_interval.h"

#include <cmath>

namespace dlsim::train {
namespace {

bool FittedStack(const TrainOptions& o, const std::string& arch) {
  const std::string& s = o.training.stack;
  const bool stack = s.empty() || s.rfind("megatron-core", 0) == 0 || s.rfind("nemo", 0) == 0;
  return stack && o.training.recipe == Recipe::kMixed && !o.model.moe.enabled() &&
         (arch == "ampere" || arch == "hopper");
}

// A stack that carries kernel rates measured for this architecture (stacks.yaml `calibration:`).
bool MeasuredStack(const TrainOptions& o, const std::string& arch) {
  for (const cost::ArchTrainingCalibration& a : o.training.stack_calibration)
    if (a.architecture == arch) return true;
  return false;
}

bool Validated(const std::string& arch) {
  return arch == "ampere" || arch == "hopper" || arch == "blackwell";
}

StepInterval Make(double step_s, double low, double high, double level, std::string regime) {
  return {step_s * low, step_s * high, level, std::move(regime), false};
}

}  // namespace

std::optional<StepInterval> IntervalOf(const TrainOptions& o, const std::string& architecture, double step_s,
                                       const cost::PredictionIntervals& table,
                                       const cost::TrainingCalibration& calibration) {
  if (calibration.interval && calibration.interval->architecture == architecture)
    return Make(step_s, calibration.interval->low, calibration.interval->high, table.level, "calibrated");
  const cost::IntervalRegime* fitted = table.Find("fitted-stack");
  const cost::IntervalRegime* other = table.Find("other-stack");
  // MoE models have their own held-out sets, which dlsim misses in one direction (too fast).
  const cost::IntervalRegime* moe = table.Find("moe");
  if (moe != nullptr && o.model.moe.enabled() && Validated(architecture))
    return Make(step_s, moe->low, moe->high, table.level, moe->name);
  if (fitted != nullptr && FittedStack(o, architecture))
    return Make(step_s, fitted->low, fitted->high, table.level, fitted->name);
  const cost::IntervalRegime* measured = table.Find("measured-stack");
  // A stack with measured rates whose steps no validation set measured (the compiled stacks) is outside.
  bool unvalidated = false;
  if (measured != nullptr && MeasuredStack(o, architecture)) {
    // A regime that names no stacks covers any.
    if (measured->stacks.empty() || cost::Lists(measured->stacks, o.training.stack))
      return Make(step_s, measured->low, measured->high, table.level, measured->name);
    unvalidated = true;
  }
  if (other == nullptr) return std::nullopt;
  if (Validated(architecture) && !unvalidated)
    return Make(step_s, other->low, other->high, table.level, other->name);
  // Outside: the other-stack interval's log-width scaled by outside_widen on both sides.
  const auto [low, high] = table.WidenedOutside(*other);
  StepInterval r = Make(step_s, low, high, table.level, "outside");
  r.outside = true;
  return r;
}

std::optional<MemoryInterval> MemoryIntervalOf(double peak_gib, const cost::PredictionIntervals& table) {
  const cost::IntervalRegime* g = table.Find("memory");
  if (g == nullptr || !(peak_gib > 0) || !std::isfinite(peak_gib)) return std::nullopt;
  return MemoryInterval{peak_gib * g->low, peak_gib * g->high, table.level, g->name};
}

bool Overlaps(const StepInterval& a, const StepInterval& b) {
  return a.low_s <= b.high_s && b.low_s <= a.high_s;
}

}  // namespace dlsim::train
