// The interval a predicted step time carries (docs/validation.md, "Prediction intervals"): the
// regime the scenario falls in decides which residuals apply.
//   calibrated:   a `--calibration` file with its own interval for the scenario's GPU architecture;
//   fitted-stack: the stacks and GPUs the end-to-end constants were fitted on (no stack or a
//                 megatron-core / nemo stack, mixed precision, a dense model, an Ampere or Hopper GPU);
//   measured-stack: a stack carrying kernel rates measured for the GPU's architecture, and among the stacks
//                 the regime's rows ran (IntervalRegime::stacks, the plain-PyTorch eager stacks);
//   other-stack:  everything validated only by held-out sets (torchtitan, Megatron-DeepSpeed, plain
//                 PyTorch recipes, MoE models, Blackwell);
//   outside:      a GPU architecture no validation set has, or a stack with measured rates whose steps no
//                 validation set measured (the compiled stacks): other-stack's interval widened
//                 (PredictionIntervals::outside_widen) and flagged.
// The predicted peak memory carries the `memory` regime's interval: measured / predicted peak memory of real
// runs no constant was fitted on (Megatron-LM's functional tests, plain-PyTorch bf16 runs, torchtitan's H100
// runs; scripts/fit-intervals.py), whatever the stack.
#ifndef DLSIM_TRAIN_PREDICTION_INTERVAL_H_
#define DLSIM_TRAIN_PREDICTION_INTERVAL_H_

#include <optional>
#include <string>

#include "dlsim/cost/prediction_intervals.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

struct StepInterval {
  double low_s = 0, high_s = 0;
  double level = 0.8;
  std::string regime;
  bool outside = false;  // no validation set covers the scenario: widened
};

// The interval of a predicted peak memory, GiB.
struct MemoryInterval {
  double low_gib = 0, high_gib = 0;
  double level = 0.8;
  std::string regime;
};

// The interval of `step_s` for scenario `o` on a GPU of `architecture`; nullopt when the table has no
// regime for it (an empty table).
std::optional<StepInterval> IntervalOf(const TrainOptions& o, const std::string& architecture, double step_s,
                                       const cost::PredictionIntervals& table,
                                       const cost::TrainingCalibration& calibration);

// The interval of the peak memory `peak_gib`; nullopt when the table has no `memory` regime or the peak is
// not a positive finite number.
std::optional<MemoryInterval> MemoryIntervalOf(double peak_gib, const cost::PredictionIntervals& table);

// Whether two predictions' intervals overlap (the planner calls such layouts ties).
bool Overlaps(const StepInterval& a, const StepInterval& b);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_PREDICTION_INTERVAL_H_
