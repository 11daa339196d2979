#include "dlsim/cost/gemm_fusion.h"

#include <algorithm>

namespace dlsim::cost {
namespace {

constexpr int kB2bBlockRows[] = {32, 64, 128, 256};
constexpr int kB2bWarpsM = 4;  // warps stacked along M; each holds whole rows of the intermediate

int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

double ElementwiseSeconds(double elements, double e, const TileDevice& dev, const TileCalibration& cal) {
  return cal.launch.ToSeconds() + elements * e / (dev.hbm_bytes * cal.hbm_efficiency);
}

// The fused kernel's stage for one GEMM of the chain with block rows `tb_m`: the whole N.
TileConfig StageConfig(int tb_m, int64_t n, bool in_registers, hw::DType dt, const TileDevice& dev) {
  TileConfig c = DefaultTile(dt, dev);
  c.tb_m = tb_m;
  c.tb_n = static_cast<int>(RoundUp(n, 2 * dev.inst_n));
  c.warp_m = tb_m / kB2bWarpsM;
  c.warp_n = in_registers ? c.tb_n : c.tb_n / 2;
  return c;
}

// Time of the fused chain with block rows `tb_m`, or infeasible.
TileEstimate FusedChain(const GemmShape& s0, const GemmShape& s1, int tb_m, bool in_registers, hw::DType dt,
                        const TileDevice& dev, const TileCalibration& cal) {
  const double e = hw::DTypeBytes(dt);
  const TileConfig c0 = StageConfig(tb_m, s0.n, in_registers, dt, dev);
  const TileConfig c1 = StageConfig(tb_m, s1.n, in_registers, dt, dev);
  TileDevice limited = dev;  // the shared-memory-resident intermediate takes its share first
  if (!in_registers) {
    const double held = static_cast<double>(tb_m) * c0.tb_n * e;
    limited.smem_per_block -= held;
    limited.smem_per_sm -= held;
  }
  TileEstimate out;
  for (const TileConfig* c : {&c0, &c1}) {
    out.reason = Validate(*c, e, limited);
    if (!out.reason.empty()) return out;
  }
  const int blocks =
      std::min(ResourcesOf(c0, e, limited).blocks_per_sm, ResourcesOf(c1, e, limited).blocks_per_sm);
  // Each stage's main loop over the same ceil(m / tb_m) row blocks; one launch, and HBM traffic
  // without the intermediate's round trip.
  const TileEstimate e0 = EstimateTile(s0, e, c0, limited, cal), e1 = EstimateTile(s1, e, c1, limited, cal);
  const double mn0 = static_cast<double>(s0.m) * s0.n * s0.batch;
  out.feasible = true;
  out.tiles = e0.tiles;
  out.waves = e0.waves;
  out.blocks_per_sm = blocks;
  out.hbm_bytes = e0.hbm_bytes + e1.hbm_bytes - 2 * mn0 * e;
  const double hbm = out.hbm_bytes / (dev.hbm_bytes * cal.hbm_efficiency);
  const double compute = e0.main_loop_seconds + e1.main_loop_seconds;
  out.seconds = cal.launch.ToSeconds() + std::max(compute, hbm);
  return out;
}

}  // namespace

double FusedEpilogueSeconds(const GemmShape& s, hw::DType dt, const Epilogue& ep, const TileDevice& dev,
                            const TileCalibration& cal) {
  const double e = hw::DTypeBytes(dt);
  const double mn = static_cast<double>(s.m) * s.n * s.batch;
  EpilogueTraffic extra{((ep.bias ? static_cast<double>(s.n) : 0) + ep.elementwise_inputs * mn) * e};
  return SearchTile(s, dt, dev, cal, extra).estimate.seconds;
}

double UnfusedEpilogueSeconds(const GemmShape& s, hw::DType dt, const Epilogue& ep, const TileDevice& dev,
                              const TileCalibration& cal) {
  const double e = hw::DTypeBytes(dt);
  const double mn = static_cast<double>(s.m) * s.n * s.batch;
  double t = SearchTile(s, dt, dev, cal).estimate.seconds;
  if (ep.bias) t += ElementwiseSeconds(2 * mn + static_cast<double>(s.n), e, dev, cal);
  if (ep.activation) t += ElementwiseSeconds(2 * mn, e, dev, cal);
  for (int i = 0; i < ep.elementwise_inputs; ++i) t += ElementwiseSeconds(3 * mn, e, dev, cal);
  return t;
}

TileEstimate BackToBackSeconds(const GemmShape& s0, const GemmShape& s1, hw::DType dt, const TileDevice& dev,
                               const TileCalibration& cal) {
  TileEstimate best;
  if (s0.m != s1.m || s0.batch != s1.batch || s1.k != s0.n) {
    best.reason = "GEMMs do not chain: need the same m and batch and k1 == n0";
    return best;
  }
  best.reason = "no block tile holds the intermediate (n0 = " + std::to_string(s0.n) + ")";
  for (bool in_registers : {true, false}) {
    for (int tb_m : kB2bBlockRows) {
      const TileEstimate t = FusedChain(s0, s1, tb_m, in_registers, dt, dev, cal);
      if (t.feasible && (!best.feasible || t.seconds < best.seconds)) best = t;
    }
  }
  return best;
}

double UnfusedBackToBackSeconds(const GemmShape& s0, const GemmShape& s1, hw::DType dt, const TileDevice& dev,
                                const TileCalibration& cal) {
  return SearchTile(s0, dt, dev, cal).estimate.seconds + SearchTile(s1, dt, dev, cal).estimate.seconds;
}

}  // namespace dlsim::cost
