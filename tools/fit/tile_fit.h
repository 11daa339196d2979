// Fitting the tile model's constants (cost/tile_gemm.h) on GEMM profile samples, and the
// accuracy comparison of the roofline and tile models on three held-out splits.
//
//   FitTile(samples, arch);                       // arch.tile fitted on non-held-out GEMM rows
//   std::vector<SplitError> t = CompareModels(samples, cal_start);
//
// Splits (docs/cost-model.md, "Accuracy"): `tokens` every 4th distinct token count (the
// interpolation split); `operator` each GEMM operator in turn held out whole, the model fitted
// on the other three; `gpu` constants fitted on A100 rows applied to H100's hardware, scored
// on every H100 row. Pure computation; thread-compatible.
#ifndef DLSIM_TOOLS_FIT_TILE_FIT_H_
#define DLSIM_TOOLS_FIT_TILE_FIT_H_

#include <string>
#include <vector>

#include "dlsim/cost/compute_calibration.h"
#include "profiles.h"

namespace dlsim::fit {

// Seconds the tile model predicts for a GEMM sample (fp16 template search on the profiled GPU).
double PredictTile(const Sample& s, const cost::ArchCalibration& arch);

// Fits arch.tile (mma and HBM efficiency, launch and per-wave overhead) on the non-held-out
// GEMM rows of arch.architecture (every `stride`-th such row, to keep the search affordable).
void FitTile(const std::vector<Sample>& samples, cost::ArchCalibration& arch, int stride = 8);

struct SplitError {
  std::string split, architecture, op;
  int rows = 0;
  double roofline_mape = 0, tile_mape = 0, learned_mape = 0;  // percent, on the held-out rows
};

// The three models (roofline, tile, learned) fitted and scored on each split; the learned model
// trains on every 8th non-held-out GEMM row of both GPUs (for the `gpu` split: A100 rows plus 64
// KMeans-selected H100 rows as fine-tuning, which are then not scored); `start` gives the starting constants.
std::vector<SplitError> CompareModels(const std::vector<Sample>& samples,
                                      const std::vector<cost::ArchCalibration>& start);

std::string SplitTable(const std::vector<SplitError>& rows);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_TILE_FIT_H_
