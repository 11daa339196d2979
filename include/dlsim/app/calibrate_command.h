// `dlsim calibrate RUNS.csv [-o FILE] [--fit a,b] [--threads N] [--json]`: fit a few of the stack's
// constants to the user's measured runs (io/calibration_runs.h, validate/calibrate.h) and write a
// calibration file that `train`, `plan` and `validate` take as `--calibration FILE`
// (docs/calibration.md). Prints which constants moved, their sensitivities, and step-time (and
// memory) MAPE with the shipped constants, fitted in-sample, and leave-one-run-out.
//
//   int code = app::RunCalibrateCommand({.file = "runs.csv", .output = "my-stack.yaml"}, {}, std::cout,
//   std::cerr);
#ifndef DLSIM_APP_CALIBRATE_COMMAND_H_
#define DLSIM_APP_CALIBRATE_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct CalibrateArgs {
  std::string file;    // RUNS.csv
  std::string output;  // -o FILE: the calibration to write (nothing written when empty or on error)
  std::string fit;     // --fit: comma-separated constant names; empty: chosen by sensitivity
  int threads = 1;
  bool json = false;
};

// kExitOk when fitted (and written); kExitError for a bad file, row, constant list or run, with
// nothing written.
int RunCalibrateCommand(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_CALIBRATE_COMMAND_H_
