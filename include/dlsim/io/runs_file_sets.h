// Held-out validation sets kept as runs files (data/validation/*_runs.csv, embedded): each file is read by
// the runs reader (io/calibration_runs.h: one training scenario per row, a `training.stack` applied as a
// scenario applies it) and scored as shipped by validate::ScoreRuns. `dlsim validate` lists them after
// validate::RunValidation's sets, so `--set`, `--json`, `--html` and `--calibrate-with` treat them alike.
//
//   auto sets = io::RunRunsFileSets(catalogs, "cudnn");   // the sets whose name contains "cudnn"
//
// A set is a data file and one line of the table in runs_file_sets.cc.
#ifndef DLSIM_IO_RUNS_FILE_SETS_H_
#define DLSIM_IO_RUNS_FILE_SETS_H_

#include <string>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/validate/validation.h"

namespace dlsim::io {

// The sets whose name contains `only` ("" : all), in table order. Errors: a file that does not read (its
// reader's message, naming the file, line and column).
Result<std::vector<validate::ValidationSet>> RunRunsFileSets(const catalog::Catalogs& catalogs,
                                                             const std::string& only);

}  // namespace dlsim::io

#endif  // DLSIM_IO_RUNS_FILE_SETS_H_
