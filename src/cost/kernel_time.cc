#include "dlsim/cost/kernel_time.h"

#include <algorithm>
#include <cmath>

namespace dlsim::cost {
namespace {

constexpr int kAttentionBlock = 128;  // FlashAttention-2/3 query and key block size

double CeilDiv(double a, double b) { return std::ceil(a / b); }

}  // namespace

DeviceRates DeviceRates::Of(const hw::GpuSpec& gpu, hw::DType dt) {
  DeviceRates r;
  // The first type of dt, fp16, fp32 the GPU supports, at the rate it sustains.
  hw::DType use = dt;
  if (!gpu.Supports(use)) use = hw::DType::kFp16;
  if (!gpu.Supports(use)) use = hw::DType::kFp32;
  r.peak_flops = gpu.SustainedPeak(use).value();
  r.vector_flops = gpu.Peak(hw::DType::kFp32).value() > 0 ? gpu.SustainedPeak(hw::DType::kFp32).value()
                                                          : r.peak_flops / 16;
  r.hbm_bytes = gpu.hbm_bandwidth.value();
  r.sms = std::max(1, gpu.sm_count);
  return r;
}

double WaveFill(double m, double n, double batch, int tile_m, int tile_n, int sms) {
  const double tiles = CeilDiv(m, tile_m) * CeilDiv(n, tile_n) * batch;
  const double waves = CeilDiv(tiles, sms);
  return m * n * batch / (waves * sms * static_cast<double>(tile_m) * tile_n);
}

int GemmAlignmentBytes(const GemmShape& s, double dtype_bytes) {
  if (s.layout == GemmLayout::kKernelManaged) return kGemmVectorBytes;
  const bool weight_grad = s.layout == GemmLayout::kWeightGradient;
  int aligned = kGemmVectorBytes;
  for (const int64_t dim : {weight_grad ? s.m : s.k, s.n}) {
    const auto bytes = static_cast<int64_t>(std::llround(static_cast<double>(dim) * dtype_bytes));
    if (bytes > 0) aligned = static_cast<int>(std::min<int64_t>(aligned, bytes & -bytes));
  }
  return aligned;
}

namespace {

// The curve and per-kernel overhead a GEMM of alignment `aligned` bytes runs on (GemmAlignmentCalibration).
GemmCalibration MisalignedCurve(GemmCalibration g, const GemmAlignmentCalibration& a, int aligned,
                                Duration& overhead) {
  const double share = static_cast<double>(aligned) / kGemmVectorBytes;
  g.max_efficiency *= std::pow(share, a.compute_exponent);
  g.mem_efficiency *= std::pow(share, a.memory_exponent);
  if (a.k_half > 0) g.k_half = a.k_half;
  if (a.tiles_half > 0) g.tiles_half = a.tiles_half;
  overhead += a.overhead;
  return g;
}

}  // namespace

double GemmSeconds(const GemmShape& s, double dtype_bytes, const ArchCalibration& arch,
                   const GemmCalibration& aligned_curve, const DeviceRates& r) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return 0.0;
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double batch = static_cast<double>(s.batch);
  Duration overhead = arch.gemm_overhead;
  const GemmAlignmentCalibration& a = arch.gemm_alignment;
  const bool penalised = a.compute_exponent > 0 || a.memory_exponent > 0 || a.overhead > Duration() ||
                         a.k_half > 0 || a.tiles_half > 0 || a.memory_overlap < 1;
  const int aligned = penalised && dtype_bytes <= 2 ? GemmAlignmentBytes(s, dtype_bytes) : kGemmVectorBytes;
  const GemmCalibration g =
      aligned < kGemmVectorBytes ? MisalignedCurve(aligned_curve, a, aligned, overhead) : aligned_curve;
  // Output tiles per SM: a GEMM with fewer tiles than SMs leaves SMs idle unless cuBLAS splits
  // K; the saturating form tiles / (tiles + tiles_half) covers both.
  const double tiles = m * n * batch / (static_cast<double>(arch.tile_m) * arch.tile_n);
  const double fill = tiles / (tiles + g.tiles_half * r.sms);
  const double keff = k / (k + g.k_half);
  const double compute = s.flops().value() / (r.peak_flops * g.max_efficiency * keff) / fill;
  const double memory = s.Elements() * dtype_bytes / (r.hbm_bytes * g.mem_efficiency);
  const double serial = aligned < kGemmVectorBytes ? 1 - a.memory_overlap : 0;
  if (arch.split_k.min_k > 0 && k >= arch.split_k.min_k &&
      CeilDiv(m, arch.tile_m) * CeilDiv(n, arch.tile_n) * batch < r.sms)
    overhead += arch.split_k.overhead;
  return overhead.ToSeconds() + std::max(compute, memory) + serial * std::min(compute, memory);
}

namespace {

// FLOPs actually computed (whole 128 x 128 blocks, causal skips those above the diagonal and a window
// those wholly before it, unless the implementation is `unfused`) and thread blocks (one per query block and
// head) of one attention shape.
void AttentionWork(const AttentionShape& s, bool unfused, double* flops, double* ctas) {
  const double qb = CeilDiv(static_cast<double>(s.seq_q), kAttentionBlock);
  const double kb = CeilDiv(static_cast<double>(s.seq_kv), kAttentionBlock);
  double blocks = qb * kb;
  if (s.causal && !unfused) {
    const double offset = kb - qb;  // key blocks before the first query block
    // A window of w keys behind a block of 128 queries spans ceil((w + 127) / 128) key blocks.
    const double window_blocks =
        s.window > 0 ? CeilDiv(static_cast<double>(s.window) + kAttentionBlock - 1, kAttentionBlock) : 0;
    blocks = CappedSum(offset + 1, offset + qb, window_blocks);
    blocks = std::clamp(blocks, 1.0, qb * kb);
  }
  const double per_block = 4.0 * kAttentionBlock * kAttentionBlock * static_cast<double>(s.head_dim);
  *flops = blocks * per_block * static_cast<double>(s.heads * s.batch);
  *ctas = qb * static_cast<double>(s.heads * s.batch);
}

bool Empty(const AttentionShape& s) {
  return s.batch <= 0 || s.heads <= 0 || s.seq_q <= 0 || s.seq_kv <= 0 || s.head_dim <= 0;
}

// `keys` is the mean number of key positions one CTA iterates over: with kv_half > 0 its main loop
// reaches keys / (keys + kv_half) of the asymptotic rate (a CTA's fixed prologue and epilogue).
double AttentionTime(double flops, double ctas, double keys, int64_t head_dim, bool backward,
                     const AttentionCalibration& c, const DeviceRates& r) {
  const double fill = ctas / (CeilDiv(ctas, r.sms) * r.sms);
  const double kv_half = backward ? c.bwd_kv_half.value_or(c.kv_half) : c.kv_half;
  const double keff = kv_half > 0 ? keys / (keys + kv_half) : 1.0;
  const double d = static_cast<double>(head_dim);
  const double padded = c.head_dim_step > 0 ? CeilDiv(d, c.head_dim_step) * c.head_dim_step : d;
  const double head_dim_half = backward ? c.bwd_head_dim_half.value_or(c.head_dim_half) : c.head_dim_half;
  flops *= (padded + head_dim_half) / d;  // padded work, at the head dimension's rate
  const double eff = backward ? c.bwd_efficiency : c.fwd_efficiency;
  if (backward) flops *= 2.5;
  const Duration overhead = backward ? c.bwd_overhead.value_or(c.overhead) : c.overhead;
  return overhead.ToSeconds() + flops / (r.peak_flops * eff * fill * keff);
}

double KeysPerCta(double flops, double ctas, int64_t head_dim) {
  return flops / (ctas * 4.0 * kAttentionBlock * static_cast<double>(head_dim));
}

}  // namespace

double AttentionSeconds(const AttentionShape& s, bool backward, const ArchCalibration& arch,
                        const DeviceRates& r) {
  if (Empty(s)) return 0.0;
  const AttentionCalibration& c = arch.Attention(s.backend);
  double flops = 0, ctas = 0;
  AttentionWork(s, c.unfused, &flops, &ctas);
  return AttentionTime(flops, ctas, KeysPerCta(flops, ctas, s.head_dim), s.head_dim, backward, c, r);
}

double AttentionVarlenSeconds(const std::vector<AttentionShape>& blocks, bool backward,
                              const ArchCalibration& arch, const DeviceRates& r) {
  if (blocks.empty()) return 0.0;
  const AttentionShape& first = blocks.front();
  const AttentionCalibration& cal = arch.Attention(first.backend);
  double flops = 0, ctas = 0;
  for (const AttentionShape& s : blocks) {
    if (Empty(s)) continue;
    double f = 0, c = 0;
    AttentionWork(s, cal.unfused, &f, &c);
    flops += f;
    ctas += c;
  }
  if (ctas <= 0) return 0.0;
  return AttentionTime(flops, ctas, KeysPerCta(flops, ctas, first.head_dim), first.head_dim, backward, cal,
                       r);
}

double MemoryBoundSeconds(double bytes, double flops, const MemoryBoundCalibration& c, const DeviceRates& r,
                          MemoryKind kind) {
  if (bytes <= 0 && flops <= 0) return 0.0;
  const double mem = bytes / (r.hbm_bytes * c.Efficiency(kind));
  const double vec = flops / r.vector_flops;
  return c.overhead.ToSeconds() + std::max(mem, vec);
}

}  // namespace dlsim::cost
