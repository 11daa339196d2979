// The end-to-end training fit: the five constants of data/calibration/training.yaml fitted on the
// step times of the fit sets of data/validation/ with Nelder-Mead, as dlsim-fit-training and
// `dlsim validate --cross-validate` run it.
//
//   FitProblem p = TrainingFitProblem(catalogs);
//   FitResult r = FitOnRows(p, TrainingFitStart(), {}, /*selection=*/{});   // all rows
//   cost::TrainingCalibration c = TrainingCalibrationFromParams(r.x);
//
// Objective over a row selection: the mean over fit sets with at least one selected row of
// (MAPE over the set's selected rows / the set's CI bound (10% when it has none))^2, so no set is
// traded away for another. With every row selected it is the objective of dlsim-fit-training.
// Pure computation; thread-safe when `predict` is (TrainingFitProblem's is: each call copies the
// catalogs).
#ifndef DLSIM_VALIDATE_TRAINING_FIT_H_
#define DLSIM_VALIDATE_TRAINING_FIT_H_

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/nelder_mead.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/validate/validation.h"

namespace dlsim::validate {

// Predicted rows of the fit sets (at least) for a parameter vector.
using PredictFn = std::function<Result<std::vector<ValidationSet>>(const std::vector<double>& x)>;

// A fit: which sets it sees, how to predict them, and the Nelder-Mead stages (one initial step
// vector per stage; each stage restarts the simplex at the previous stage's best point).
struct FitProblem {
  PredictFn predict;
  std::vector<std::string> fit_sets;
  std::vector<std::vector<double>> stage_steps;
  // A scan before the first stage over one parameter (when that parameter is free): the objective at
  // the start with parameter `grid_param` set to each of `grid_values`; the first stage starts from the
  // best of them. Empty: no scan. For a parameter whose objective has several basins.
  int grid_param = -1;
  std::vector<double> grid_values;
  // Per parameter, the sets whose rows it affects (empty list or empty vector: every set). A fit
  // whose selection has no row of any of them keeps the parameter at its start value.
  std::vector<std::vector<std::string>> param_sets;
  // Per parameter, its value in a fit whose selection informs it not at all (empty: it keeps its
  // start value). NaN in TrainingFitProblem: the constant is left out and the kernel-level value
  // of data/calibration/compute.yaml applies.
  std::vector<double> uninformed;
};

// Rows that a fit sees: per set name, one flag per row. A set absent from the map is seen whole;
// a set whose flags are all false is left out of the objective.
using RowSelection = std::map<std::string, std::vector<bool>>;

struct FitResult {
  std::vector<double> x;
  double objective = 0;  // at x, over the selected rows
  // MAPE (%) over the selected rows per fit set with any, in the order predict returns the sets.
  std::vector<std::pair<std::string, double>> set_mape;
  int evaluations = 0;              // objective evaluations, all stages
  bool converged = true;            // every stage stopped on the tolerance (true when it is negative)
  std::vector<ValidationSet> sets;  // the predictions at x (empty when they failed)
};

// The objective (see the file comment) and the per-set MAPEs over the selected rows.
double FitObjective(const std::vector<ValidationSet>& sets, const std::vector<std::string>& fit_sets,
                    const RowSelection& selection, std::vector<std::pair<std::string, double>>* set_mape);

// Runs the stages from x0 with `options` per stage over the parameters the selection informs
// (FitProblem::param_sets); the others take FitProblem::uninformed. A failing prediction scores 1e9.
FitResult FitOnRows(const FitProblem& problem, std::vector<double> x0, const NelderMeadOptions& options,
                    const RowSelection& selection);

// The training problem: predict = RunValidation of the fit sets with the catalogs' training
// calibration replaced by TrainingCalibrationFromParams(x); two stages.
FitProblem TrainingFitProblem(const catalog::Catalogs& catalogs);

// The fit sets of the training fit (step time only; memory is not fitted).
const std::vector<std::string>& TrainingFitSets();

// Parameters: {ampere gemm_max_efficiency, hopper fp8_gemm_max_efficiency, hopper
// attention_efficiency, layer_host_us, ampere elementwise_efficiency}. Fractions are clamped to
// [0.05, 1], the host time to >= 0; a NaN fraction leaves the constant out (kernel-level value),
// a NaN host time is 0 (no host floor).
cost::TrainingCalibration TrainingCalibrationFromParams(const std::vector<double>& x);
// The inverse for a calibration that sets all five (missing ones read as TrainingFitStart's).
std::vector<double> TrainingParamsOf(const cost::TrainingCalibration& c,
                                     const cost::ComputeCalibration& kernel);
// The start of dlsim-fit-training and of the leave-one-set-out refits: the kernel-level values of
// `kernel` (data/calibration/compute.yaml: the A100 bf16 GEMM asymptote and elementwise bandwidth
// fraction, the H100 FP8 GEMM asymptote and attention forward efficiency) and no host floor, so that
// no refit starts from constants fitted on the rows it leaves out.
std::vector<double> TrainingFitStart(const cost::ComputeCalibration& kernel);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_TRAINING_FIT_H_
