// `dlsim validate`: predicted vs published measurements for every validation set, MAPE per set;
// with `cross_validate`, the in-sample MAPE of each fit set next to its k-fold and
// leave-one-set-out cross-validated MAPE (validate/cross_validation.h).
//
//   int code = app::RunValidateCommand({.summary = true}, {}, std::cout, std::cerr);
//   code = app::RunValidateCommand({.cross_validate = true, .threads = 2}, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_VALIDATE_COMMAND_H_
#define DLSIM_APP_VALIDATE_COMMAND_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct ValidateArgs {
  std::string only;      // only sets whose name contains this text
  bool json = false;     // JSON instead of tables
  bool summary = false;  // only the per-set summary
  // An HTML page of every set, predicted against measured (not with cross_validate or calibrate_with).
  std::string html_path;
  // Cross-validation of the training fit (the fit sets; `only` filters what is printed).
  bool cross_validate = false;
  int folds = 5;              // k of the k-fold scheme
  uint64_t seed = 20;         // seeds the fold assignment
  int cv_iterations = 60;     // Nelder-Mead iterations per k-fold refit (early stop on the tolerance)
  int loso_iterations = 150;  // per stage of a leave-one-set-out refit (dlsim-fit-training's fit)
  int threads = 0;            // refits in parallel (0: all cores); the output does not depend on it
  // > 0: each held-out step-time set (no CI bound) scored three ways: shipped constants, after `dlsim
  // calibrate` on this many of its rows (error on the others), and calibrated on all rows (in-sample).
  int calibrate_with = 0;
  // Hears of the cross-validation refits done so far (the CLI's progress line); may be empty.
  std::function<void(size_t, size_t)> progress;
};

// Returns kExitOk, or kExitError when a set cannot run, none matches `only`, or the
// cross-validation options are invalid (folds < 2, iterations < 1).
int RunValidateCommand(const ValidateArgs& args, const CommonArgs& common, std::ostream& out,
                       std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_VALIDATE_COMMAND_H_
