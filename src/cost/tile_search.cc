#include "dlsim/cost/tile_search.h"

#include <algorithm>

namespace dlsim::cost {
namespace {

constexpr int kBlockTiles[][2] = {{256, 128}, {128, 256}, {128, 128}, {256, 64},
                                  {64, 256},  {128, 64},  {64, 128},  {64, 64}};
constexpr int kStages[] = {2, 3, 4, 5, 6};
constexpr int kSplitK[] = {1, 2, 4, 8, 16};

// The deeper of the two block-tile K depths, in elements: 64 for 16-bit inputs (tb_k 32 or 64),
// scaled to the same bytes for other types.
int BaseTbK(hw::DType dt) {
  const double e = hw::DTypeBytes(dt);
  return static_cast<int>(128 / e);
}

int WarpOf(int tb) { return tb >= 128 ? 64 : tb / 2; }

TileConfig Make(int tb_m, int tb_n, int tb_k, int stages, int split_k, const TileDevice& dev) {
  TileConfig c;
  c.tb_m = tb_m, c.tb_n = tb_n, c.tb_k = tb_k;
  c.warp_m = WarpOf(tb_m), c.warp_n = WarpOf(tb_n), c.warp_k = tb_k;
  c.inst_m = dev.inst_m, c.inst_n = dev.inst_n, c.inst_k = dev.inst_k;
  c.stages = stages, c.split_k = split_k;
  return c;
}

// Seconds of a copy kernel padding both operands' K to `k_padded`.
double PadSeconds(const GemmShape& s, int64_t k_padded, double e, const TileDevice& dev,
                  const TileCalibration& cal) {
  const double elems = static_cast<double>(s.m + s.n) * static_cast<double>(s.k + k_padded) * s.batch;
  return cal.launch.ToSeconds() + elems * e / (dev.hbm_bytes * cal.hbm_efficiency);
}

// The best of `feasible` for `s`.
TileChoice Best(const GemmShape& s, double e, const std::vector<TileConfig>& feasible, const TileDevice& dev,
                const TileCalibration& cal, EpilogueTraffic epilogue) {
  TileChoice best;
  bool found = false;
  for (const TileConfig& c : feasible) {
    if (c.split_k > 1 && (s.k / c.split_k) < c.tb_k) continue;  // nothing left to split
    const TileEstimate est = EstimateTile(s, e, c, dev, cal, epilogue);
    if (!found || est.seconds < best.estimate.seconds) {
      best.config = c;
      best.estimate = est;
      found = true;
    }
  }
  if (!found) best.estimate.reason = "no template fits the device";
  return best;
}

}  // namespace

std::vector<TileConfig> CandidateTiles(hw::DType dt, const TileDevice& dev) {
  std::vector<TileConfig> out;
  const int base = BaseTbK(dt);
  for (const auto& tb : kBlockTiles)
    for (int tb_k : {base / 2, base})
      for (int stages : kStages)
        for (int split : kSplitK) out.push_back(Make(tb[0], tb[1], tb_k, stages, split, dev));
  return out;
}

TileConfig DefaultTile(hw::DType dt, const TileDevice& dev) {
  return Make(128, 128, BaseTbK(dt) / 2, dev.inst_k == 4 ? 2 : 3, 1, dev);
}

std::vector<TileConfig> FeasibleTiles(hw::DType dt, const TileDevice& dev) {
  std::vector<TileConfig> out;
  for (const TileConfig& c : CandidateTiles(dt, dev)) {
    if (Validate(c, hw::DTypeBytes(dt), dev).empty()) out.push_back(c);
  }
  return out;
}

TileChoice SearchTile(const GemmShape& s, hw::DType dt, const TileDevice& dev, const TileCalibration& cal,
                      const std::vector<TileConfig>& feasible, EpilogueTraffic epilogue) {
  const double e = hw::DTypeBytes(dt);
  TileChoice best = Best(s, e, feasible, dev, cal, epilogue);
  const int full = AlignmentElements(1 << 20, e);
  if (s.k > 0 && AlignmentElements(s.k, e) < full) {
    GemmShape padded = s;
    padded.k = (s.k + full - 1) / full * full;
    TileChoice p = Best(padded, e, feasible, dev, cal, epilogue);
    p.estimate.seconds += PadSeconds(s, padded.k, e, dev, cal);
    if (p.estimate.feasible && p.estimate.seconds < best.estimate.seconds) {
      p.padded = true;
      best = p;
    }
  }
  best.candidates = static_cast<int>(CandidateTiles(dt, dev).size());
  best.pruned = best.candidates - static_cast<int>(feasible.size());
  return best;
}

TileChoice SearchTile(const GemmShape& s, hw::DType dt, const TileDevice& dev, const TileCalibration& cal,
                      EpilogueTraffic epilogue) {
  return SearchTile(s, dt, dev, cal, FeasibleTiles(dt, dev), epilogue);
}

}  // namespace dlsim::cost
