// Calibrating dlsim to a user's own training stack (`dlsim calibrate RUNS.csv -o my-stack.yaml`):
// a few measured runs fit a few of the stack's constants, bounded and starting from the shipped
// values, and the result is a calibration file that `train`, `plan` and `validate` lay over the
// shipped constants (`--calibration FILE`, io::LoadCatalogs).
//
//   std::vector<CalibrationRun> runs = ...;      // io::ReadCalibrationRuns
//   Result<CalibrateResult> r = Calibrate(runs, catalogs, {});
//   r->calibration                               // only the fitted constants
//   r->mape_held_out                             // leave-one-run-out step-time MAPE (%)
//
// The constants (StackConstants): the GPU architecture's bf16/fp16 and FP8 GEMM asymptotes, the
// attention efficiency and the elementwise bandwidth fraction, the per-layer host time, and (from the
// runs that give a peak memory) the framework's memory overhead per GPU. Step-time constants are
// fitted by Nelder-Mead on the mean squared log ratio predicted / measured; the memory overhead in
// closed form (the mean residual). At most one constant per two runs is fitted ("refuses to fit more
// constants than the rows support"); with none named, the most sensitive ones that the runs inform
// are chosen. Every figure is also reported leave-one-run-out: each run predicted by a fit on the
// others, started from the same shipped values.
//
// Deterministic whatever `threads` is. Pure computation (no files).
#ifndef DLSIM_VALIDATE_CALIBRATE_H_
#define DLSIM_VALIDATE_CALIBRATE_H_

#include <optional>
#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/train/options.h"
#include "dlsim/validate/validation.h"

namespace dlsim::validate {

// One measured run of the user's stack.
struct CalibrationRun {
  std::string label;  // where it came from, e.g. "runs.csv:3"; used in messages
  train::TrainOptions options;
  double step_time_s = 0;                 // measured, > 0
  std::optional<double> peak_memory_gib;  // measured peak allocated memory, when given
};

// A constant `Calibrate` can fit: its name, bounds (the fit never leaves them) and unit.
struct StackConstant {
  const char* name;  // gemm, fp8_gemm, attention, elementwise, host, memory
  double lo, hi;
  const char* unit;  // "fraction", "us", "GiB"
  const char* what;
};
const std::vector<StackConstant>& StackConstants();

struct CalibrateOptions {
  // The constants to fit (StackConstants names); empty: chosen by sensitivity (see the file comment);
  // {"none"}: fit nothing, only score the runs with the catalogs' constants.
  std::vector<std::string> constants;
  int threads = 1;  // leave-one-out refits in parallel
};

struct ConstantFit {
  std::string name;
  double start = 0;        // the shipped value the fit started from
  double value = 0;        // fitted
  double sensitivity = 0;  // mean |relative change| of the predictions per +10% of the constant
  bool at_bound = false;   // the fit stopped at a bound (the runs want a value outside it)
};

struct RunFit {
  std::string label;
  double measured_s = 0, before_s = 0, fitted_s = 0, held_out_s = 0;
  std::optional<double> memory_gib, memory_before_gib, memory_fitted_gib, memory_held_out_gib;
};

struct CalibrateResult {
  std::string architecture;               // of the runs' GPU
  std::vector<ConstantFit> fitted;        // in fit order
  std::vector<ConstantFit> candidates;    // every step-time constant with its sensitivity
  cost::TrainingCalibration calibration;  // the fitted constants only
  std::vector<RunFit> runs;
  double mape_before = 0, mape_fitted = 0, mape_held_out = 0;  // step time, %
  std::optional<double> memory_mape_before, memory_mape_fitted, memory_mape_held_out;
  int evaluations = 0;  // simulated runs, all fits
};

// Errors (kInvalidArgument, naming the run's label): fewer than 2 runs; runs on GPUs of different
// architectures; an unknown or repeated constant name; more step-time constants than half the runs
// (or a memory constant with fewer than two runs giving memory); a run that does not simulate or is
// infeasible with the shipped constants and after the memory fit.
Result<CalibrateResult> Calibrate(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& catalogs,
                                  const CalibrateOptions& options);

// A validation set scored three ways (issue 32): with the shipped constants (its held-out error), after
// `Calibrate` on `n` of its rows (evenly spaced; the error on the other rows), and after `Calibrate` on all
// of them (in-sample). Rows without a scenario or infeasible with the shipped constants are left out.
struct SetCalibration {
  std::string set;
  size_t rows = 0;                     // rows used
  double uncalibrated_mape = 0;        // all rows, shipped constants
  double calibrated_mape = 0;          // the rows not calibrated on, after calibrating on n
  double in_sample_mape = 0;           // all rows, after calibrating on all of them
  std::vector<std::string> constants;  // fitted on the n rows
};

// Errors: fewer than n + 2 usable rows, or a Calibrate error.
Result<SetCalibration> CalibrateOnRows(const ValidationSet& set, const catalog::Catalogs& catalogs, size_t n,
                                       int threads);

// A validation set of measured runs (a runs file, io/calibration_runs.h): every run's scenario priced with
// `catalogs` against its measured step time, in order, each row keeping its scenario (so CalibrateOnRows
// can re-price it). Held out: bound_pct 0. A run that does not simulate is an infeasible row with the reason.
ValidationSet ScoreRuns(std::string name, std::string source, const std::vector<CalibrationRun>& runs,
                        const catalog::Catalogs& catalogs);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_CALIBRATE_H_
