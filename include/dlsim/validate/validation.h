// Validation against published measurements: each set maps the rows of a published table
// to training scenarios, simulates them and compares a metric (step time, memory).
//
//   auto sets = RunValidation(catalogs, /*only=*/"");
//   for (const auto& s : *sets) std::cout << s.name << " MAPE " << s.Mape();
//
// The CSV files are embedded (data/validation/). Choices that the tables leave open are
// documented per set in docs/validation.md, never fitted to the measured values.
#ifndef DLSIM_VALIDATE_VALIDATION_H_
#define DLSIM_VALIDATE_VALIDATION_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/train/options.h"

namespace dlsim::validate {

struct ValidationRow {
  std::string label;
  double measured = 0;
  double predicted = 0;
  bool feasible = true;
  std::string note;  // e.g. the infeasibility reason
  // The scenario behind a step-time row (null for rows that are not one simulated step), so a row can be
  // re-priced, e.g. under a calibration fitted on other rows (validate/calibrate.h, CalibrateOnRows).
  std::shared_ptr<const train::TrainOptions> options;
  double ErrorPct() const { return measured != 0 ? 100.0 * (predicted - measured) / measured : 0; }
};

// Mean absolute percentage error (%) of `predicted` against `measured` (paired by index, measured > 0);
// 0 when empty.
double Mape(const std::vector<double>& predicted, const std::vector<double>& measured);

struct ValidationSet {
  std::string name;      // e.g. "megatron-2021-table1"
  std::string metric;    // e.g. "step time (s)"
  std::string source;    // first comment line of the file
  double bound_pct = 0;  // MAPE bound asserted in CI (0: informational)
  std::vector<ValidationRow> rows;
  double Mape() const;  // mean absolute percentage error over rows
  double MaxAbsErrorPct() const;
  double SignedMeanErrorPct() const;  // mean signed percentage error (negative: predictions too fast / low)
};

// Runs every set (or those whose name contains `only`) with the catalogs' calibrations (the
// fitting program varies `catalogs.training`).
Result<std::vector<ValidationSet>> RunValidation(const catalog::Catalogs& catalogs,
                                                 const std::string& only = "");

// Runs the sets whose names are in `names` (exact), in RunValidation's order.
Result<std::vector<ValidationSet>> RunValidationSets(const catalog::Catalogs& catalogs,
                                                     const std::vector<std::string>& names);

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_VALIDATION_H_
