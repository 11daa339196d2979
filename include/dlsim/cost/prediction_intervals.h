// How sure a predicted step time is: per validated regime, the 10th and 90th percentiles of
// measured / predicted over the validation rows of that regime, scored by fits that did not see them
// (data/calibration/intervals.yaml, written by scripts/fit-intervals.py from `dlsim validate
// --cross-validate --json`, `dlsim validate --json` and the H200 runs; docs/validation.md,
// "Prediction intervals"). A prediction p in regime r carries the interval [p x low, p x high].
#ifndef DLSIM_COST_PREDICTION_INTERVALS_H_
#define DLSIM_COST_PREDICTION_INTERVALS_H_

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlsim::cost {

struct IntervalRegime {
  std::string name;        // fitted-stack, other-stack, calibrated
  double low = 1;          // the `level` interval's lower quantile of measured / predicted
  double high = 1;         // its upper quantile
  int sets = 0, rows = 0;  // validation sets and rows behind it
  std::string what;        // which scenarios it covers, in words
  // A serving regime: the engine profiles and catalog GPUs of the rows behind it (empty for training regimes,
  // which the scenario's stack and GPU architecture select, train/prediction_interval.h).
  std::vector<std::string> engines, gpus;
  // A training regime built from named stacks' runs (measured-stack): those stacks (training.stack). Empty:
  // any.
  std::vector<std::string> stacks;
};

// Whether `names` (a regime's engines, gpus or stacks) holds `name`.
bool Lists(const std::vector<std::string>& names, std::string_view name);

struct PredictionIntervals {
  std::string source;
  double level = 0.8;          // nominal coverage
  double outside_widen = 1.5;  // outside every validated regime: other-stack's interval, its log-width x this
  std::vector<IntervalRegime> regimes;
  const IntervalRegime* Find(std::string_view name) const;
  // `r`'s bounds for a scenario outside every validated regime: each bound's logarithm times outside_widen
  // (the interval's log-width around the point prediction widened by that factor on both sides).
  std::pair<double, double> WidenedOutside(const IntervalRegime& r) const;
};

}  // namespace dlsim::cost

#endif  // DLSIM_COST_PREDICTION_INTERVALS_H_
