// Bolt's templated search: for one GEMM shape, enumerate CUTLASS-style kernel templates, prune
// those the hardware cannot run (shared memory, registers, threads per block), price the rest
// with the tile model (tile_gemm.h) and keep the fastest.
//
//   const TileDevice dev = TileDevice::Of(gpu, hw::DType::kFp16);
//   TileChoice best = SearchTile({.m = 4096, .n = 1024, .k = 4096}, hw::DType::kFp16, dev, arch.tile);
//   TileEstimate fixed = EstimateTile(shape, 2.0, DefaultTile(dev), dev, arch.tile);
//
// The space (docs/cost-model.md): threadblock tiles 256x128, 128x256, 128x128, 256x64, 64x256,
// 128x64, 64x128, 64x64 (CUTLASS's sm80 tensor-op profiler set); tb_k 32 or 64 bytes-scaled
// (x2 for 8-bit, /2 for 32-bit); warp tiles 64 per dimension of >= 128, else half the block;
// 2..6 stages; split-K 1, 2, 4, 8, 16. When K is not a multiple of the 128-bit vector, the
// search also prices padding K (a copy kernel for both operands) with full-width loads.
//
// Pure functions; thread-safe.
#ifndef DLSIM_COST_TILE_SEARCH_H_
#define DLSIM_COST_TILE_SEARCH_H_

#include <vector>

#include "dlsim/cost/tile_gemm.h"

namespace dlsim::cost {

// Every template of the space for `dt` on `dev` (instruction shape from the device), before
// pruning.
std::vector<TileConfig> CandidateTiles(hw::DType dt, const TileDevice& dev);

// CUTLASS's default for a tensor-op GEMM: 128x128x32 (x64 for 8-bit), warps 64x64, 3 stages
// (2 on Volta), no split-K.
TileConfig DefaultTile(hw::DType dt, const TileDevice& dev);

struct TileChoice {
  TileConfig config;
  TileEstimate estimate;
  bool padded = false;  // K padded to the vector width (pad kernel included in the time)
  int candidates = 0;   // templates considered
  int pruned = 0;       // rejected by Validate (hardware limits)
};

// The candidates that pass Validate on `dev`: pruning does not depend on the shape, so callers
// that search many shapes prune once.
std::vector<TileConfig> FeasibleTiles(hw::DType dt, const TileDevice& dev);

// The fastest of `feasible` for `s` (a zero-size GEMM: a zero estimate).
TileChoice SearchTile(const GemmShape& s, hw::DType dt, const TileDevice& dev, const TileCalibration& cal,
                      const std::vector<TileConfig>& feasible, EpilogueTraffic epilogue = {});
// The same over FeasibleTiles(dt, dev).
TileChoice SearchTile(const GemmShape& s, hw::DType dt, const TileDevice& dev, const TileCalibration& cal,
                      EpilogueTraffic epilogue = {});

}  // namespace dlsim::cost

#endif  // DLSIM_COST_TILE_SEARCH_H_
