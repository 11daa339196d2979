// The formulas of the roofline compute model as pure functions of shapes, device rates and
// calibration constants (in seconds). The roofline ComputeModel and the `dlsim-fit` program
// both use them, so the fitted constants mean exactly what the model computes.
//
//   DeviceRates r = DeviceRates::Of(gpu, hw::DType::kBf16);
//   double s = GemmSeconds({.m = 4096, .n = 4096, .k = 4096}, 2.0, arch, arch.Gemm(kBf16), r);
//
// GEMM (docs/cost-model.md):
//   tiles   = m n batch / (Tm Tn)
//   fill    = tiles / (tiles + tiles_half * SMs)         small outputs leave SMs idle (or split K)
//   keff    = k / (k + k_half)                           per-tile prologue/epilogue
//   compute = 2 m n k batch / (peak * max_efficiency * fill * keff)
//   memory  = (m k + k n + m n) batch * bytes / (hbm * mem_efficiency)
//   time    = overhead + max(compute, memory)
//
// Pure functions; thread-safe.
#ifndef DLSIM_COST_KERNEL_TIME_H_
#define DLSIM_COST_KERNEL_TIME_H_

#include <vector>

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::cost {

struct DeviceRates {
  double peak_flops = 0;    // dense tensor-core peak of the data type, FLOP/s
  double vector_flops = 0;  // fp32 CUDA-core peak, FLOP/s (memory-bound kernels)
  double hbm_bytes = 0;     // HBM bandwidth, bytes/s
  int sms = 1;

  // Peak of `dt` from the spec at the share the part sustains (GpuSpec::SustainedPeak); when the GPU has
  // no such peak (e.g. fp8 before Hopper) the closest supported one (fp8 -> fp16/bf16 -> fp32).
  static DeviceRates Of(const hw::GpuSpec& gpu, hw::DType dt);
};

// Fraction of the SMs' tile slots doing useful work for an m x n (x batch) output with
// Tm x Tn tiles: m n batch / (waves * SMs * Tm * Tn). In (0, 1].
double WaveFill(double m, double n, double batch, int tile_m, int tile_n, int sms);

// The widest vector load cuBLAS's tensor-core kernels use (16 bytes: 8 bf16 or 16 fp8 elements).
inline constexpr int kGemmVectorBytes = 16;

// The alignment in bytes (1, 2, 4, 8 or 16) of `s`'s operands: the largest power of two, at most
// kGemmVectorBytes, dividing the byte length of each leading dimension (GemmLayout), the smaller of the two.
int GemmAlignmentBytes(const GemmShape& s, double dtype_bytes);

// time = overhead + max(compute, memory) on the curve g (compute_calibration.h GemmCalibration):
//   compute = flops / (peak * max_efficiency * k / (k + k_half)) / fill
//   fill    = tiles / (tiles + tiles_half * SMs)
//   memory  = (m k + k n + m n) batch * dtype_bytes / (hbm * mem_efficiency)
// With misaligned operands (GemmAlignmentBytes a < 16, 16- and 8-bit types) the GEMM runs on the misaligned
// curve of arch.gemm_alignment (compute_calibration.h GemmAlignmentCalibration): max_efficiency x
// (a/16)^compute_exponent, mem_efficiency x (a/16)^memory_exponent, its k_half and tiles_half, + its
// overhead, + (1 - memory_overlap) min(compute, memory). With arch.split_k set (min_k > 0), a GEMM of fewer
// ceil(m/tile_m) ceil(n/tile_n) batch tiles than SMs and k >= min_k adds split_k.overhead (the reduction
// kernel).
double GemmSeconds(const GemmShape& s, double dtype_bytes, const ArchCalibration& arch,
                   const GemmCalibration& g, const DeviceRates& r);

// Forward: the score matrix is processed in 128 x 128 blocks (blocks wholly above a causal
// diagonal skipped); one CTA per (batch, head, 128 query rows), quantized in waves over SMs.
//   time = overhead + block_flops / (peak * efficiency * wave_fill)
// One variable-length attention kernel (FlashAttention varlen) over several blocks: the
// blocks share one launch, and their CTAs fill the SMs together.
double AttentionVarlenSeconds(const std::vector<AttentionShape>& blocks, bool backward,
                              const ArchCalibration& arch, const DeviceRates& r);
double AttentionSeconds(const AttentionShape& s, bool backward, const ArchCalibration& arch,
                        const DeviceRates& r);

double MemoryBoundSeconds(double bytes, double flops, const MemoryBoundCalibration& c, const DeviceRates& r,
                          MemoryKind kind = MemoryKind::kElementwise);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_KERNEL_TIME_H_
