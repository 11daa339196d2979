// Features of one GEMM on one device for the learned latency model (CDMPP's idea: operator and
// device features in one vector, so one regressor covers several GPUs).
//
//   std::vector<double> x = GemmFeatures({.m = 4096, .n = 4096, .k = 4096}, hw::DType::kFp16, dev);
//
// Operator: log2 m, n, k, FLOPs, bytes, arithmetic intensity, element bytes. Device (catalog):
// log2 peak, HBM bandwidth, SMs, L2 MiB, shared memory per SM. Tile-model outputs (template
// search with the built-in TileCalibration, so the features do not move when compute.yaml is
// refitted): log2 predicted seconds, waves, wave fill, memory-bound flag; and the roofline's two
// bounds, log2 flops / peak and bytes / bandwidth. The learned model predicts log(measured /
// tile-model seconds) from them. Pure functions; thread-safe.
#ifndef DLSIM_COST_GEMM_FEATURES_H_
#define DLSIM_COST_GEMM_FEATURES_H_

#include <string>
#include <vector>

#include "dlsim/cost/tile_gemm.h"

namespace dlsim::cost {

inline constexpr int kGemmFeatureCount = 18;

const std::vector<std::string>& GemmFeatureNames();

// The feature vector (kGemmFeatureCount values) and, in *tile_seconds, the tile model's time
// the learned model corrects. `feasible`: FeasibleTiles(dt, dev), pruned once by the caller.
std::vector<double> GemmFeatures(const GemmShape& s, hw::DType dt, const TileDevice& dev,
                                 const std::vector<TileConfig>& feasible, double* tile_seconds);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_GEMM_FEATURES_H_
