// Cross-validation of the end-to-end fit: refit on part of the rows, score the rows left out.
//
//   CrossValidationReport r = *CrossValidate(TrainingFitProblem(catalogs),
//                                            TrainingParamsOf(catalogs.training), {});
//   for (const auto& s : r.sets) std::cout << s.name << s.in_sample_mape << s.kfold_mape;
//
// Two schemes, each set's rows scored only by fits that did not see them:
//   - k-fold within sets: the rows of every fit set are split into k folds (AssignFolds); fit j
//     sees the rows outside fold j of every set and predicts fold j. A set with fewer than k rows
//     has one row per fold in its first folds.
//   - leave one set out: fit j sees every fit set but set j and predicts set j.
// k-fold refits start from `x_start` (the in-sample optimum: a warm start; every parameter is
// still pinned by the rows each refit sees, as every set keeps most of its rows) and run the
// problem's last (finest) stage, stopping early when the simplex's objective values agree within
// the tolerance. Leave-one-set-out refits run the problem's full fit from the cold start (the
// kernel-level values): a set left out may be the only data for a parameter (the H100 constants
// are fitted on NeMo alone), and a warm start would hand it the left-out set's value; a parameter
// that no remaining set informs (FitProblem::param_sets) takes FitProblem::uninformed (for the
// training fit: the constant is left out and its kernel-level value applies).
// Fits run on `threads` threads, longest first; each result depends only on its own fit, so the
// report is bit-identical for any thread count. `predict` must be thread-safe.
#ifndef DLSIM_VALIDATE_CROSS_VALIDATION_H_
#define DLSIM_VALIDATE_CROSS_VALIDATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/core/progress.h"
#include "dlsim/core/result.h"
#include "dlsim/validate/training_fit.h"

namespace dlsim::validate {

struct CrossValidationOptions {
  int folds = 5;       // k of the k-fold scheme (>= 2)
  uint64_t seed = 20;  // seeds the fold assignment
  // k-fold refits: at most 60 iterations, stop when the simplex's objective values agree within 1e-3.
  NelderMeadOptions kfold_fit{.iterations = 60, .f_tolerance = 1e-3};
  // Leave-one-set-out refits, per stage of the problem: dlsim-fit-training's 150 iterations, but
  // stopping once the simplex's objective values agree within 1e-4.
  NelderMeadOptions loso_fit{.iterations = 150, .f_tolerance = 1e-4};
  std::vector<double> cold_start;  // start of the leave-one-set-out refits (empty: x_start)
  // The fit sets to leave out one at a time (empty: every fit set); the others get no loso_mape.
  std::vector<std::string> loso_sets;
  int threads = 0;      // 0: one per hardware thread (at most one per fit)
  ProgressFn progress;  // hears of the refits done so far (may be empty); results never depend on it
};

// The cross-validated errors of one fit set (percent).
struct SetCrossValidation {
  std::string name;
  size_t rows = 0;
  int folds = 0;                    // k-fold folds that hold at least one of its rows
  double in_sample_mape = 0;        // at x_start, the fit that saw every row
  double kfold_mape = 0;            // each row predicted by the fit that left its fold out
  std::optional<double> loso_mape;  // predicted by the fit that left the set out (none: one set, or
                                    // not in CrossValidationOptions::loso_sets)
  // Per row: its label, measured value, and the k-fold and leave-one-set-out predictions (the latter
  // empty without loso_mape); the residuals data/calibration/intervals.yaml is derived from.
  std::vector<std::string> labels;
  std::vector<double> measured, kfold_predicted, loso_predicted;
};

// One refit: what it left out and how it ended.
struct CrossValidationFit {
  std::string held_out;  // "fold 3" or a set name
  double objective = 0;  // on the rows it saw
  int evaluations = 0;
  bool converged = false;
  std::vector<double> x;
};

struct CrossValidationReport {
  int folds = 0;
  uint64_t seed = 0;
  std::vector<SetCrossValidation> sets;  // in the order predict returns the fit sets
  std::vector<CrossValidationFit> fits;  // k-fold fits, then leave-one-set-out fits
};

// Fold of each row, in [0, min(k, rows)): rows are ordered by a seeded hash of their label (ties
// by position) and dealt round-robin, so every row is in exactly one fold, fold sizes differ by at
// most one, and rows with the same label in different sets (the same configuration measured two
// ways) share a fold when the sets have the same labels. Precondition: k >= 1.
std::vector<int> AssignFolds(const std::vector<std::string>& labels, int k, uint64_t seed);

// Runs both schemes. Errors: k < 2, a failing prediction at x_start, or no fit set predicted.
Result<CrossValidationReport> CrossValidate(const FitProblem& problem, const std::vector<double>& x_start,
                                            const CrossValidationOptions& options);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_CROSS_VALIDATION_H_
