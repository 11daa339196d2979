// Fitting the roofline compute model's constants on profile samples, and scoring them.
//
//   std::vector<Sample> s = ...;  MarkHeldOut(s);
//   ArchFit f = FitArchitecture(s, "ampere");          // fits on rows that are not held out
//   std::vector<OpError> e = Score(s, calibration);    // MAPE per op, fit and held-out rows
//
// Pure computation; thread-compatible.
#ifndef DLSIM_TOOLS_FIT_FIT_H_
#define DLSIM_TOOLS_FIT_FIT_H_

#include <functional>
#include <string>
#include <vector>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/cost/compute_calibration.h"
#include "profiles.h"

namespace dlsim::fit {

// The memory access pattern of a profiled memory-bound operator (vidur op names).
cost::MemoryKind MemoryKindOfOp(const std::string& op);

// Predicted seconds for one sample under `arch` (GEMMs use the fp16/bf16 curve).
double Predict(const Sample& s, const cost::ArchCalibration& arch);

// Fits GEMM, memory-bound and (where samples exist) attention constants of one architecture
// on its samples that are not held out; constants without data keep the values of `start`.
cost::ArchCalibration FitArchitecture(const std::vector<Sample>& samples, const cost::ArchCalibration& start);

struct OpError {
  std::string architecture, op;
  int fit_rows = 0, held_rows = 0;
  double fit_mape = 0, held_mape = 0;  // percent
};

// MAPE per (architecture, op) on fit and held-out rows with num_tokens >= min_tokens; archs
// missing from `cal` are skipped.
std::vector<OpError> Score(const std::vector<Sample>& samples, const cost::ComputeCalibration& cal,
                           int64_t min_tokens = 0);

// Training micro-batches hold at least this many tokens; the GEMM error bound is stated here.
inline constexpr int64_t kTrainingTokens = 2048;

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_FIT_H_
