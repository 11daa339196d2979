// `dlsim-fit learned`: fits the default learned GEMM latency model (cost/learned_fit.h) on every
// row of a compact GEMM profile CSV and writes it as data/calibration/learned_gemm.txt.
#ifndef DLSIM_TOOLS_FIT_LEARNED_CMD_H_
#define DLSIM_TOOLS_FIT_LEARNED_CMD_H_

#include <string>

#include "dlsim/core/result.h"

namespace dlsim::fit {

// The model file's text (header with the command, rows and fit error; then the trees).
// Deterministic: the same CSV gives the same bytes.
Result<std::string> FitLearnedModelText(const std::string& profiles_csv, const std::string& command);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_LEARNED_CMD_H_
