// Literature constants (for what the profiles do not measure) and the output of dlsim-fit:
// the calibration YAML (read back by io::ParseComputeCalibration) and the error table.
#ifndef DLSIM_TOOLS_FIT_YAML_OUT_H_
#define DLSIM_TOOLS_FIT_YAML_OUT_H_

#include <string>
#include <vector>

#include "dlsim/cost/compute_calibration.h"
#include "fit.h"

namespace dlsim::fit {

// Starting points for the fit of "ampere" and "hopper", holding the literature constants for
// what the profiles do not cover (A100 attention; the backward/forward attention ratio).
std::vector<cost::ArchCalibration> LiteratureStart();
// Adds the constants that are not fitted: the FP8 GEMM curve on Hopper (fitted 16-bit curve with
// max_efficiency scaled by kFp8Ratio).
void AddLiteratureConstants(cost::ComputeCalibration& cal);
inline constexpr double kFp8Ratio = 0.85;

// `errors`: all rows; `training_errors`: rows with num_tokens >= kTrainingTokens.
std::string CalibrationYaml(const cost::ComputeCalibration& cal, const std::vector<OpError>& errors,
                            const std::vector<OpError>& training_errors, const std::string& command,
                            const std::string& date);
// Fixed-width table: architecture, op, rows and MAPE on fit and held-out rows.
std::string ErrorTable(const std::vector<OpError>& errors);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_YAML_OUT_H_
