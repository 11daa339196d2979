// The measured runs `dlsim calibrate RUNS.csv` reads: one run per row.
//
//   label,scenario,step_time_s,peak_memory_gib,training.micro_batch,parallel.tp
//   8b-mb1,runs/llama3_8b.yaml,1.92,38.1,1,
//   8b-mb2,runs/llama3_8b.yaml,3.71,51.0,2,
//
// Columns: `step_time_s` (required: the measured seconds per optimizer step, > 0); `scenario` (a
// training scenario file, relative to the CSV's folder; optional when the other columns give a whole
// scenario); `peak_memory_gib` (optional: the measured peak allocated memory per GPU, > 0; an empty cell
// is "not measured"); `label` (optional; default FILE:LINE); every other column is a scenario key as a
// dotted path (`training.seq_len`, `parallel.tp`, `model.name`, `hardware.gpus`) whose cell, when not
// empty, replaces that key of the row's scenario (read as a YAML scalar). '#' lines are comments.
//
// Every error names the file, line and column (or key) and nothing is simulated: a missing
// step_time_s column, a non-numeric, NaN, zero or negative time or memory, a scenario that does not
// read, a key the scenario format does not have (the scenario reader's message, with the row's line).
#ifndef DLSIM_IO_CALIBRATION_RUNS_H_
#define DLSIM_IO_CALIBRATION_RUNS_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/validate/calibrate.h"

namespace dlsim::io {

// Parses the CSV text; `file_name` names it in messages and its folder resolves `scenario` paths.
Result<std::vector<validate::CalibrationRun>> ParseCalibrationRuns(std::string_view text,
                                                                   const std::string& file_name,
                                                                   const catalog::Catalogs& catalogs);
// ReadTextFile + ParseCalibrationRuns.
Result<std::vector<validate::CalibrationRun>> LoadCalibrationRuns(const std::string& path,
                                                                  const catalog::Catalogs& catalogs);

}  // namespace dlsim::io

#endif  // DLSIM_IO_CALIBRATION_RUNS_H_
