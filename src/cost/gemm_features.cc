#include "dlsim/cost/gemm_features.h"

#include <cmath>

#include "dlsim/cost/tile_search.h"

namespace dlsim::cost {

const std::vector<std::string>& GemmFeatureNames() {
  static const auto* names = new std::vector<std::string>{"log2_m",          "log2_n",
                                                          "log2_k",          "log2_flops",
                                                          "log2_bytes",      "log2_intensity",
                                                          "dtype_bytes",     "log2_peak_tflops",
                                                          "log2_hbm_gbps",   "sms",
                                                          "l2_mib",          "smem_kib_per_sm",
                                                          "log2_tile_us",    "tile_waves",
                                                          "tile_fill",       "tile_memory_bound",
                                                          "log2_compute_us", "log2_memory_us"};
  return *names;
}

std::vector<double> GemmFeatures(const GemmShape& s, hw::DType dt, const TileDevice& dev,
                                 const std::vector<TileConfig>& feasible, double* tile_seconds) {
  const double e = hw::DTypeBytes(dt);
  const double flops = std::max(1.0, s.flops().value());
  const double bytes = std::max(1.0, s.Elements() * e);
  const TileChoice t = SearchTile(s, dt, dev, TileCalibration{}, feasible);
  *tile_seconds = std::max(1e-9, t.estimate.seconds);
  const double slots = static_cast<double>(dev.sms) * std::max(1, t.estimate.blocks_per_sm);
  const double fill = t.estimate.waves > 0 ? t.estimate.tiles / (t.estimate.waves * slots) : 0;
  return {std::log2(std::max<int64_t>(1, s.m)),
          std::log2(std::max<int64_t>(1, s.n)),
          std::log2(std::max<int64_t>(1, s.k)),
          std::log2(flops),
          std::log2(bytes),
          std::log2(flops / bytes),
          e,
          std::log2(dev.peak_flops * 1e-12),
          std::log2(dev.hbm_bytes * 1e-9),
          static_cast<double>(dev.sms),
          dev.l2_mib,
          dev.smem_per_sm / 1024,
          std::log2(*tile_seconds * 1e6),
          static_cast<double>(t.estimate.waves),
          fill,
          t.estimate.memory_bound ? 1.0 : 0.0,
          std::log2(flops / dev.peak_flops * 1e6),
          std::log2(bytes / dev.hbm_bytes * 1e6)};
}

}  // namespace dlsim::cost
