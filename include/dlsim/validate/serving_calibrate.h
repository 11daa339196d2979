// Calibrate a serving engine's CPU time to the user's own measured runs (`dlsim calibrate --serve RUNS.csv`;
// docs/calibration.md, "Serving engines"): each run is a serve scenario with its measured mean TPOT (and
// optionally mean TTFT); the fit sets the engine's step and per-request time (serve/engine_host.h) so the
// simulated TPOTs match, then its first-token path so the TTFTs do.
//
//   auto r = validate::CalibrateServing(runs, catalogs);
//   io::FormatTrainingCalibration(cal_with(r->fitted), header)   // the `serving_engines:` section
#ifndef DLSIM_VALIDATE_SERVING_CALIBRATE_H_
#define DLSIM_VALIDATE_SERVING_CALIBRATE_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/serve/options.h"

namespace dlsim::validate {

struct ServingRun {
  std::string label;
  serve::ServeOptions options;
  double tpot_ms = 0;             // measured mean TPOT
  std::optional<double> ttft_ms;  // measured mean TTFT, when the run gives it
};

struct ServingRunFit {
  std::string label;
  double tpot_ms = 0, tpot_before_ms = 0, tpot_after_ms = 0;
  std::optional<double> ttft_ms;
  double ttft_before_ms = 0, ttft_after_ms = 0;
};

struct ServingCalibrateResult {
  std::string engine;
  cost::EngineHostCalibration fitted;  // the constants fitted (per_request_us only with two or more runs)
  double step_before_us = 0, per_request_before_us = 0, first_token_before_us = 0;
  std::vector<ServingRunFit> runs;
  double tpot_mape_before = 0, tpot_mape_after = 0;
  std::optional<double> ttft_mape_before, ttft_mape_after;  // over the runs that give a TTFT
};

// Errors: no runs, runs of different engines, a run that does not simulate or completes no request with two
// output tokens. The step is searched in 0..50 ms and the per-request time in 0..2 ms (Nelder-Mead,
// core/nelder_mead.h, minimising the mean squared log ratio of TPOT); the first-token path is the mean TTFT
// residual (an additive offset: least squares in closed form), at least 0.
Result<ServingCalibrateResult> CalibrateServing(const std::vector<ServingRun>& runs,
                                                const catalog::Catalogs& catalogs);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_SERVING_CALIBRATE_H_
