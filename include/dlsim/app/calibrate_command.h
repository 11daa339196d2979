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

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct CalibrateArgs {
  std::string file;                 // RUNS.csv (or none, with traces)
  std::vector<std::string> traces;  // --trace STEP.json[.gz] (repeatable): calibrate from profiled steps
  std::string gpu;                  // --gpu: the traces' GPU (default: from the traces' device name)
  bool with_host = false;           // --with-host: also write the traced host time per layer
  bool serve = false;               // --serve: RUNS.csv holds serving runs (io/serving_runs.h)
  std::string output;  // -o FILE: the calibration to write (nothing written when empty or on error)
  std::string fit;     // --fit: comma-separated constant names; empty: chosen by sensitivity
  int threads = 1;
  bool json = false;
};

// kExitOk when fitted (and written); kExitError for a bad file, row, constant list or run, with
// nothing written.
// With `traces`: RunTraceCalibration (calibrate_trace.cc); both a RUNS.csv and traces is a usage error.
int RunCalibrateCommand(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err);

// `dlsim calibrate --trace A.json.gz [--trace B ...] [--gpu NAME] [-o FILE] [--json]`:
// validate/trace_calibrate.h on the profiled steps; prints each trace's GPU time by category and host time
// per layer, then each family's constant, shipped and fitted, with dlsim's time for the traced calls before
// and after.
int RunTraceCalibration(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err);

// `dlsim calibrate --serve RUNS.csv [-o FILE] [--json]`: validate/serving_calibrate.h on measured serving
// runs (io/serving_runs.h); prints the engine's CPU times, profile and fitted, and each run's TPOT and TTFT.
int RunServeCalibration(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err);

// What the ways of calibrating end with: write `file_text` to args.output (whole or not at all), then print
// `json` (--json) or `render`'s report and where the file went. kExitOk, or kExitError when the write fails.
int FinishCalibration(const CalibrateArgs& args, const std::string& file_text,
                      const nlohmann::ordered_json& json, const std::function<void(std::ostream&)>& render,
                      std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_CALIBRATE_COMMAND_H_
