// Bolt's graph-level fusions priced with the tile model (tile_gemm.h, tile_search.h).
//
// Epilogue fusion: bias, activation and elementwise inputs (a residual) applied to the GEMM's
// output tile in registers before it is stored. Fused, the epilogue reads only its extra inputs
// (bias n, each elementwise input m n); unfused, every operation is its own memory-bound kernel
// that reads and writes the m x n output (bias: 2 m n + n, activation: 2 m n, elementwise: 3 m n
// elements) and pays a launch.
//
// Back-to-back (persistent) GEMM fusion, D = (A B0) B1: one kernel in which each thread block
// owns tb_m whole rows; the intermediate C = A B0 (tb_m x n0) stays in registers (each warp
// holds whole rows: warp_n = n0) or, when those do not fit, in shared memory, and is never
// written to HBM. The price is parallelism: only ceil(m / tb_m) x batch blocks exist.
//
//   Epilogue ep{.bias = true, .activation = true};
//   double fused = FusedEpilogueSeconds(s, dt, ep, dev, cal);
//   TileEstimate b2b = BackToBackSeconds(s0, s1, dt, dev, cal);   // may be infeasible
//
// Pure functions; thread-safe.
#ifndef DLSIM_COST_GEMM_FUSION_H_
#define DLSIM_COST_GEMM_FUSION_H_

#include "dlsim/cost/tile_search.h"

namespace dlsim::cost {

struct Epilogue {
  bool bias = false;
  bool activation = false;
  int elementwise_inputs = 0;  // e.g. 1 for a residual add
};

// Best template with the epilogue fused (its inputs added to the HBM term).
double FusedEpilogueSeconds(const GemmShape& s, hw::DType dt, const Epilogue& ep, const TileDevice& dev,
                            const TileCalibration& cal);
// Best template for the bare GEMM plus one memory-bound kernel per epilogue operation, each
// launch + bytes / (HBM x hbm_efficiency).
double UnfusedEpilogueSeconds(const GemmShape& s, hw::DType dt, const Epilogue& ep, const TileDevice& dev,
                              const TileCalibration& cal);

// The fused kernel for s0 = [m, n0, k0], s1 = [m, n1, n0] (same m and batch). Infeasible, with
// the reason, when the shapes do not chain or no block tile holds the intermediate.
TileEstimate BackToBackSeconds(const GemmShape& s0, const GemmShape& s1, hw::DType dt, const TileDevice& dev,
                               const TileCalibration& cal);
// The two GEMMs as separate searched kernels (the intermediate goes through HBM).
double UnfusedBackToBackSeconds(const GemmShape& s0, const GemmShape& s1, hw::DType dt, const TileDevice& dev,
                                const TileCalibration& cal);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_GEMM_FUSION_H_
