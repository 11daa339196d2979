// The measured serving runs `dlsim calibrate --serve RUNS.csv` reads: one run per row.
//
//   label,scenario,tpot_ms,ttft_ms
//   8b-rate4,runs/llama3_8b_rate4.yaml,14.2,61.0
//   8b-rate8,runs/llama3_8b_rate8.yaml,22.9,
//
// Columns: `scenario` (required: a serve scenario file, relative to the CSV's folder, whose `engine:` is the
// engine to calibrate), `tpot_ms` (required: the measured mean time per output token, > 0), `ttft_ms`
// (optional: the measured mean time to first token, > 0; an empty cell is "not measured"), `label`
// (optional; default FILE:LINE). '#' lines are comments. Every error names the file, line and column (a
// scenario's own errors with the row's line); nothing is simulated when any row is bad.
#ifndef DLSIM_IO_SERVING_RUNS_H_
#define DLSIM_IO_SERVING_RUNS_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/validate/serving_calibrate.h"

namespace dlsim::io {

Result<std::vector<validate::ServingRun>> ParseServingRuns(std::string_view text,
                                                           const std::string& file_name,
                                                           const catalog::Catalogs& catalogs,
                                                           const ServeNames& names);
// ReadTextFile + ParseServingRuns.
Result<std::vector<validate::ServingRun>> LoadServingRuns(const std::string& path,
                                                          const catalog::Catalogs& catalogs,
                                                          const ServeNames& names);

}  // namespace dlsim::io

#endif  // DLSIM_IO_SERVING_RUNS_H_
