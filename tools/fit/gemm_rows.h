// What the GEMM fits (`dlsim-fit gemm`, `dlsim-fit gemm-alignment`) share: the measured GEMMs of
// `dlsim kernels` CSVs, their MAPE under a curve, and a multi-start Nelder-Mead over positive constants.
#ifndef DLSIM_TOOLS_FIT_GEMM_ROWS_H_
#define DLSIM_TOOLS_FIT_GEMM_ROWS_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/cost/kernel_time.h"

namespace dlsim::fit {

// A measured GEMM: its shape and measured seconds.
struct GemmPoint {
  cost::GemmShape shape;
  double t = 0;
};

struct GemmRows {
  std::vector<GemmPoint> half, fp8;  // bf16/fp16 and fp8 rows with a measured time
};

// The GEMM rows of every CSV (io::ReadKernelOpsCsv); errors are the reader's.
Result<GemmRows> ReadGemmRows(const std::vector<std::string>& ops_csvs);

// MAPE (percent) of cost::GemmSeconds on `curve` of `arch` over `pts` (elements of `bytes` bytes); 0 when
// there are none.
double GemmMape(const std::vector<GemmPoint>& pts, const cost::ArchCalibration& arch,
                const cost::GemmCalibration& curve, const cost::DeviceRates& r, double bytes);

// The least `f` over positive constants: from each start, Nelder-Mead run twice in the constants' logs
// (steps 0.3, `iterations` each); the best vertex (as constants, not logs) and its value in *value.
// Deterministic. Preconditions: starts non-empty, every start's constants positive and of one length.
std::vector<double> MinimizePositive(const std::function<double(const std::vector<double>&)>& f,
                                     const std::vector<std::vector<double>>& starts, int iterations,
                                     double* value);

// "A + B + ..." of the CSV paths, for a file's source line.
std::string JoinSources(const std::vector<std::string>& ops_csvs);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_GEMM_ROWS_H_
