// Validation against published measurements: each set maps the rows of a published table
// to training scenarios, simulates them and compares a metric (step time, memory).
//
//   auto sets = RunValidation(catalogs, compute_cal, net_cal, /*only=*/"");
//   for (const auto& s : *sets) std::cout << s.name << " MAPE " << s.Mape();
//
// The CSV files are embedded (data/validation/). Choices that the tables leave open are
// documented per set in docs/validation.md, never fitted to the measured values.
#ifndef DLSIM_VALIDATE_VALIDATION_H_
#define DLSIM_VALIDATE_VALIDATION_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/net/calibration.h"
#include "dlsim/train/training_calibration.h"

namespace dlsim::validate {

struct ValidationRow {
  std::string label;
  double measured = 0;
  double predicted = 0;
  bool feasible = true;
  std::string note;  // e.g. the infeasibility reason
  double ErrorPct() const { return measured != 0 ? 100.0 * (predicted - measured) / measured : 0; }
};

struct ValidationSet {
  std::string name;      // e.g. "megatron-2021-table1"
  std::string metric;    // e.g. "step time (s)"
  std::string source;    // first comment line of the file
  double bound_pct = 0;  // MAPE bound asserted in CI (0: informational)
  std::vector<ValidationRow> rows;
  double Mape() const;  // mean absolute percentage error over rows
  double MaxAbsErrorPct() const;
};

struct Calibrations {
  cost::ComputeCalibration compute;
  net::NetworkCalibration network;
  train::TrainingCalibration training;
};

// Runs every set (or those whose name contains `only`).
Result<std::vector<ValidationSet>> RunValidation(const io::Catalogs& catalogs, const Calibrations& cal,
                                                 const std::string& only = "");

}  // namespace dlsim::validate

#endif  // DLSIM_VALIDATE_VALIDATION_H_
