#include "dlsim/cost/tile_gemm.h"

#include <algorithm>
#include <cmath>

#include "dlsim/cost/kernel_time.h"

namespace dlsim::cost {
namespace {

constexpr int kWarp = 32;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxRegsPerThread = 255;
constexpr int kRegGranularity = 8;       // registers are allocated per thread in steps of 8
constexpr int kBookkeepingRegs = 32;     // addresses, loop counters, predicates
constexpr double kL2PerHbm = 3.5;        // A100 7219 / 2039 GB/s, V100 3133 / 900 (whitepapers)
constexpr double kAccumulatorBytes = 4;  // fp32 partials of split-K

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

void SetInstruction(const std::string& arch, hw::DType dt, TileDevice& d) {
  const bool eight_bit = dt == hw::DType::kFp8 || dt == hw::DType::kInt8;
  const bool wide = dt == hw::DType::kFp32 || dt == hw::DType::kTf32;
  if (arch == "volta") {
    d.inst_m = 8, d.inst_n = 8, d.inst_k = 4;
  } else if (arch == "turing") {
    d.inst_m = 16, d.inst_n = 8, d.inst_k = eight_bit ? 16 : 8;
  } else {
    d.inst_m = 16, d.inst_n = 8, d.inst_k = eight_bit ? 32 : (wide ? 8 : 16);
  }
}

}  // namespace

std::string TileConfig::Name() const {
  return std::to_string(tb_m) + "x" + std::to_string(tb_n) + "x" + std::to_string(tb_k) + "_" +
         std::to_string(warp_m) + "x" + std::to_string(warp_n) + "_s" + std::to_string(stages) + "_k" +
         std::to_string(split_k);
}

TileDevice TileDevice::Of(const hw::GpuSpec& gpu, hw::DType dt) {
  TileDevice d;
  d.sms = std::max(1, gpu.sm_count);
  d.peak_flops = DeviceRates::Of(gpu, dt).peak_flops;
  d.hbm_bytes = gpu.hbm_bandwidth.value();
  d.l2_bytes = gpu.l2_bandwidth.value() > 0 ? gpu.l2_bandwidth.value() : kL2PerHbm * d.hbm_bytes;
  d.l2_mib = gpu.l2_size.ToMiB();
  d.smem_per_sm = gpu.smem_per_sm.value();
  d.smem_per_block = gpu.smem_per_block.value();
  d.regs_per_sm = gpu.regs_per_sm;
  d.max_threads_per_sm = gpu.max_threads_per_sm;
  d.max_blocks_per_sm = gpu.max_blocks_per_sm;
  SetInstruction(gpu.architecture, dt, d);
  return d;
}

TileResources ResourcesOf(const TileConfig& c, double e, const TileDevice& dev) {
  TileResources r;
  r.threads =
      kWarp * std::max(1, c.tb_m / std::max(1, c.warp_m)) * std::max(1, c.tb_n / std::max(1, c.warp_n));
  r.smem_bytes = static_cast<double>(c.stages) * (c.tb_m + c.tb_n) * c.tb_k * e;
  const double acc = static_cast<double>(c.warp_m) * c.warp_n / kWarp;
  const double frag = 2.0 * (c.warp_m + c.warp_n) * c.inst_k / kWarp * e / 4;
  const int regs = static_cast<int>(std::ceil(acc + frag)) + kBookkeepingRegs;
  r.regs_per_thread = static_cast<int>(CeilDiv(regs, kRegGranularity) * kRegGranularity);
  const int by_blocks = dev.max_blocks_per_sm;
  const int by_threads = dev.max_threads_per_sm / r.threads;
  const int by_regs = dev.regs_per_sm / (r.regs_per_thread * r.threads);
  const int by_smem = r.smem_bytes > 0 ? static_cast<int>(dev.smem_per_sm / r.smem_bytes) : by_blocks;
  r.blocks_per_sm = std::min({by_blocks, by_threads, by_regs, by_smem});
  r.limit = r.blocks_per_sm == by_smem      ? "smem"
            : r.blocks_per_sm == by_regs    ? "registers"
            : r.blocks_per_sm == by_threads ? "threads"
                                            : "blocks";
  return r;
}

std::string Validate(const TileConfig& c, double e, const TileDevice& dev) {
  if (c.tb_m <= 0 || c.tb_n <= 0 || c.tb_k <= 0 || c.warp_m <= 0 || c.warp_n <= 0 || c.stages < 2 ||
      c.split_k < 1)
    return "non-positive tile dimension, fewer than 2 stages or split_k < 1";
  if (c.tb_m % c.warp_m != 0 || c.tb_n % c.warp_n != 0) return "warp tile does not divide the block tile";
  if (c.warp_m % c.inst_m != 0 || c.warp_n % c.inst_n != 0 || c.tb_k % c.inst_k != 0)
    return "instruction shape does not divide the warp tile";
  const TileResources r = ResourcesOf(c, e, dev);
  if (r.threads > kMaxThreadsPerBlock) return "more than 1024 threads per block";
  if (r.regs_per_thread > kMaxRegsPerThread)
    return std::to_string(r.regs_per_thread) + " registers per thread (limit 255)";
  if (r.smem_bytes > dev.smem_per_block)
    return std::to_string(static_cast<int64_t>(r.smem_bytes)) + " B shared memory per block (limit " +
           std::to_string(static_cast<int64_t>(dev.smem_per_block)) + ")";
  if (r.blocks_per_sm < 1) return "no block fits on an SM (" + r.limit + ")";
  return "";
}

int AlignmentElements(int64_t k, double e) {
  int a = std::max(1, static_cast<int>(16 / e));
  while (a > 1 && k % a != 0) a /= 2;
  return a;
}

namespace {

// Seconds of one wave in which each busy SM runs `blocks` blocks of `k_iters` iterations.
double WaveSeconds(int blocks, int64_t k_iters, double e, const TileConfig& c, const TileDevice& dev,
                   const TileCalibration& cal, double align_factor) {
  const double per_sm_flops = dev.peak_flops / dev.sms * cal.mma_efficiency;
  const double per_sm_l2 = dev.l2_bytes / dev.sms;
  const double mma = blocks * 2.0 * c.tb_m * c.tb_n * c.tb_k / per_sm_flops;
  const double load = blocks * static_cast<double>(c.tb_m + c.tb_n) * c.tb_k * e / per_sm_l2 / align_factor;
  const double latency = cal.memory_latency.ToSeconds();
  const double iter = std::max({mma, load, latency / (c.stages - 1)});
  return static_cast<double>(k_iters) * iter + cal.tile_overhead.ToSeconds() + latency;
}

// Sum over waves; the last, partial wave puts ceil(rest / SMs) blocks on each busy SM.
double MainLoopSeconds(int64_t tiles, int blocks_per_sm, int64_t k_iters, double e, const TileConfig& c,
                       const TileDevice& dev, const TileCalibration& cal, double align, int64_t* waves) {
  const int64_t slots = static_cast<int64_t>(dev.sms) * blocks_per_sm;
  const int64_t full = tiles / slots, rest = tiles % slots;
  *waves = full + (rest > 0 ? 1 : 0);
  double t = static_cast<double>(full) * WaveSeconds(blocks_per_sm, k_iters, e, c, dev, cal, align);
  if (rest > 0) {
    const int blocks = static_cast<int>(CeilDiv(rest, dev.sms));
    t += WaveSeconds(blocks, k_iters, e, c, dev, cal, align);
  }
  return t;
}

}  // namespace

TileEstimate EstimateTile(const GemmShape& s, double e, const TileConfig& c, const TileDevice& dev,
                          const TileCalibration& cal, EpilogueTraffic epilogue) {
  TileEstimate out;
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) {
    out.feasible = true;
    return out;
  }
  out.reason = Validate(c, e, dev);
  if (!out.reason.empty()) return out;
  out.feasible = true;
  out.blocks_per_sm = ResourcesOf(c, e, dev).blocks_per_sm;
  out.tiles = CeilDiv(s.m, c.tb_m) * CeilDiv(s.n, c.tb_n) * s.batch * c.split_k;
  const int64_t k_iters = CeilDiv(CeilDiv(s.k, c.split_k), c.tb_k);
  const double align = AlignmentElements(s.k, e) * e / 16;
  const double main =
      MainLoopSeconds(out.tiles, out.blocks_per_sm, k_iters, e, c, dev, cal, align, &out.waves);
  const double mn = static_cast<double>(s.m) * s.n * s.batch;
  out.hbm_bytes = (static_cast<double>(s.m) * s.k + static_cast<double>(s.k) * s.n) * s.batch * e + mn * e +
                  epilogue.bytes;
  double reduce = 0;
  if (c.split_k > 1) {
    const double partials = mn * c.split_k * kAccumulatorBytes;
    out.hbm_bytes += partials;  // written by the GEMM
    reduce = cal.launch.ToSeconds() + (partials + mn * e) / (dev.hbm_bytes * cal.hbm_efficiency);
  }
  const double hbm = out.hbm_bytes / (dev.hbm_bytes * cal.hbm_efficiency);
  out.main_loop_seconds = main;
  out.memory_bound = hbm > main;
  out.seconds = cal.launch.ToSeconds() + std::max(main, hbm) + reduce;
  return out;
}

}  // namespace dlsim::cost
