// `dlsim-fit gemm`: fits one GPU's whole GEMM curve (cost::GpuGemmCalibration: the 16-bit curve with its
// per-kernel overhead and misaligned curve, and the fp8 curve) on the measured GEMMs of `dlsim kernels`
// CSVs. Writes data/calibration/gemm_measured.yaml.
#ifndef DLSIM_TOOLS_FIT_GEMM_FIT_H_
#define DLSIM_TOOLS_FIT_GEMM_FIT_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::fit {

// The YAML text of the fitted curve of `gpu`, with `command` and each dtype's fit-row MAPE before (the
// architecture's shipped curve) and after in it. Objective: MAPE over the rows of that dtype; Nelder-Mead in
// log space from three fixed starts (deterministic). 16-bit rows: max_efficiency, k_half, tiles_half,
// mem_efficiency, the per-kernel overhead and the five misaligned constants, together; fp8 rows (when
// there are any): the four curve constants, the overhead kept. Errors: a CSV that does not read; an unknown
// GPU; no measured bf16/fp16 GEMM among the rows. `method` (how the rows were measured, e.g. the call and
// timer) goes into the entry's source beside the files; empty: the source says it was not given.
Result<std::string> FitGpuGemm(const std::vector<std::string>& ops_csvs, const std::string& gpu,
                               const std::string& method, const std::string& command);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_GEMM_FIT_H_
