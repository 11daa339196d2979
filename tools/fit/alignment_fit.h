// `dlsim-fit gemm-alignment`: fits the penalty of GEMMs whose operands' leading dimensions are not
// 16-byte aligned (cost::GemmAlignmentCalibration: compute and memory exponents, an extra per-kernel
// overhead, the misaligned kernels' k_half and tiles_half) on the measured 16-bit GEMMs of `dlsim kernels`
// CSVs, the rest of the architecture's GEMM curve kept as shipped (a GPU's own measured curve, `dlsim-fit
// gemm`, is not used). Writes data/calibration/gemm_alignment.yaml.
#ifndef DLSIM_TOOLS_FIT_ALIGNMENT_FIT_H_
#define DLSIM_TOOLS_FIT_ALIGNMENT_FIT_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::fit {

// The YAML text of the fitted constants of the `gpu`'s architecture, with `command` and the fit rows'
// MAPE before and after in it: the least MAPE over the misaligned bf16/fp16 GEMMs (aligned rows are
// unaffected by the constants), Nelder-Mead in log space from three fixed starts (deterministic).
// Errors: a CSV that does not read; no misaligned GEMM among the rows. `method`: how the rows were
// measured, written into the source (empty: the source says it was not given).
Result<std::string> FitGemmAlignment(const std::vector<std::string>& ops_csvs, const std::string& gpu,
                                     const std::string& method, const std::string& command);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_ALIGNMENT_FIT_H_
