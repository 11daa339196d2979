// Fitted constants of the roofline compute model, per GPU architecture and data type.
//
// A ComputeCalibration is plain data: io::ParseComputeCalibration() builds it from YAML
// (data/calibration/compute.yaml, written by `dlsim-fit compute`, embedded in the binary).
// Every constant has a physical meaning; docs/cost-model.md lists them with their sources.
// GPUs whose architecture has no entry use DefaultArchCalibration() (derived from the catalog
// spec and the calibrated architectures).
//
//   const dlsim::cost::ArchCalibration arch = dlsim::cost::ResolveArchCalibration(gpu, cal);
//   const dlsim::cost::GemmCalibration& g = arch.Gemm(dlsim::hw::DType::kBf16);
//
// Values; thread-safe for concurrent const use.
#ifndef DLSIM_COST_COMPUTE_CALIBRATION_H_
#define DLSIM_COST_COMPUTE_CALIBRATION_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::cost {

// Efficiency curve of dense GEMMs of one data type (see kernel_time.h for the formula).
struct GemmCalibration {
  // Fraction of the dense tensor-core peak reached by a large, well-shaped GEMM (the asymptote).
  double max_efficiency = 0.8;
  // Reduction length K at which the per-tile main loop reaches half of its asymptotic rate:
  // the fixed prologue/epilogue cost of a tile, expressed in K elements.
  double k_half = 64;
  // Output tiles per SM at which the SMs are half busy (small M*N under-fills the GPU).
  double tiles_half = 0.5;
  // Fraction of HBM bandwidth reached when streaming the operands bounds the GEMM (small M).
  double mem_efficiency = 0.8;
};

// GEMMs whose operands' leading dimensions are not a multiple of 16 bytes (cost/kernel_time.h,
// GemmAlignmentBytes): cuBLAS cannot use its 16-byte vector (on Hopper, TMA) loads and runs other kernels,
// with narrower ones (NVIDIA, "Matrix Multiplication Background User's Guide", Tensor Core requirements).
// With a = the alignment in bytes (1, 2, 4 or 8), such a GEMM is priced on its own curve: the aligned one's
// max_efficiency scaled by (a / 16)^compute_exponent and mem_efficiency by (a / 16)^memory_exponent, its own
// k_half and tiles_half where set (> 0; else the aligned curve's: another kernel has its own prologue and
// fill), and `overhead` more per kernel. Its memory and compute overlap by `memory_overlap`: time = max(c, m)
// + (1 - memory_overlap) min(c, m) (1: fully, as an aligned kernel's pipelined loads; 0: in series, as narrow
// synchronous loads). 16- and 8-bit GEMMs only. Zeros (the default, and memory_overlap 1): no penalty, for
// architectures where it was not measured (data/calibration/gemm_alignment.yaml).
struct GemmAlignmentCalibration {
  double compute_exponent = 0;
  double memory_exponent = 0;
  Duration overhead;
  double k_half = 0;
  double tiles_half = 0;
  double memory_overlap = 1;
};

// Split-K: cuBLAS runs a GEMM with fewer output tiles than SMs and a long K as partial products over slices
// of K, then a reduction kernel. The partial products fill the SMs (the saturating fill of kernel_time.h
// already prices that); the reduction is one more kernel: `overhead` more for GEMMs with fewer
// ceil(m / tile_m) ceil(n / tile_n) batch tiles than SMs and k >= min_k. min_k 0 (the default): no such
// term, where it was not measured.
struct SplitKCalibration {
  Duration overhead;
  double min_k = 0;
};

// FlashAttention-style kernels.
struct AttentionCalibration {
  double fwd_efficiency = 0.35;  // fraction of dense peak on long sequences, forward
  double bwd_efficiency = 0.30;  // same, backward (FlashAttention-2 reaches ~85% of its fwd rate)
  Duration overhead = Duration::Nanos(10'000);  // per kernel (launch, softmax set-up, tail)
  // Key positions one CTA iterates over at which its main loop reaches half its asymptotic rate
  // (per-CTA prologue/epilogue, as GemmCalibration::k_half); 0: none (the long-sequence rate).
  double kv_half = 0;
  // Head dimensions the kernels are compiled for come in steps of head_dim_step (FlashAttention-2: 32, so
  // 80 runs as 96); 0: any. And the rate falls with the (padded) head dimension d as d / (d + head_dim_half):
  // fewer FLOPs per loaded key and value (0: no such loss).
  int head_dim_step = 0;
  double head_dim_half = 0;
  // The backward kernel's own per-kernel overhead, kv_half and head_dim_half (it is another kernel, with its
  // own prologue and epilogue); unset: the forward's.
  std::optional<Duration> bwd_overhead;
  std::optional<double> bwd_kv_half, bwd_head_dim_half;
  // An unfused implementation (PyTorch's math path: two batched GEMMs around a softmax over the whole score
  // matrix) computes every score whatever the mask: a causal or windowed call costs what a full one does.
  bool unfused = false;
};

// Which implementation runs core attention (docs/cost-model.md, "Attention by kernel family").
// kModel: the architecture's own `attention` constants (what every simulator prices with unless a
// stack names a family); kPytorchDefault: what PyTorch's SDPA picks by default on the architecture
// (ArchCalibration::pytorch_default: cuDNN on Hopper); the others name a family.
enum class AttentionBackend { kModel, kPytorchDefault, kFlash2, kCudnn, kEfficient, kTriton, kMath };
inline constexpr std::pair<std::string_view, AttentionBackend> kAttentionBackendNames[] = {
    {"model", AttentionBackend::kModel},
    {"default", AttentionBackend::kPytorchDefault},
    {"flash", AttentionBackend::kFlash2},
    {"cudnn", AttentionBackend::kCudnn},
    {"efficient", AttentionBackend::kEfficient},
    {"triton", AttentionBackend::kTriton},
    {"math", AttentionBackend::kMath}};

// "model", "default", "flash", "cudnn", "efficient", "triton", "math".
std::string_view AttentionBackendName(AttentionBackend b);
std::optional<AttentionBackend> ParseAttentionBackend(std::string_view s);

// The access pattern of a memory-bound kernel; each reaches its own fraction of HBM bandwidth.
enum class MemoryKind {
  kElementwise,    // streaming: residual add, activation, rotary, dropout, softmax
  kNormalization,  // row reductions: LayerNorm/RMSNorm, cross entropy
  kGather,         // indexed rows: embedding lookup
  kOptimizer,      // the optimizer step (fused / multi-tensor AdamW over every parameter)
  kCopy,           // whole contiguous tensors copied or cast (autocast's weight and gradient casts)
  kPermute,        // MoE token permutation: hidden-wide token rows gathered into expert order and back
};

// Memory-bound kernels: time = overhead + max(bytes / (hbm * efficiency), flops / vector peak).
struct MemoryBoundCalibration {
  double efficiency = 0.7;                     // elementwise: fraction of HBM bandwidth
  double norm_efficiency = 0;                  // normalizations (0: use `efficiency`)
  double gather_efficiency = 0;                // gathers (0: use `efficiency`)
  double optimizer_efficiency = 0;             // the optimizer step (0: use `efficiency`)
  double copy_efficiency = 0;                  // contiguous copies and casts (0: use `efficiency`)
  double permute_efficiency = 0;               // MoE token permute / unpermute (0: use `efficiency`)
  Duration overhead = Duration::Nanos(5'000);  // per kernel (launch and tail)

  double Efficiency(MemoryKind k) const {
    if (k == MemoryKind::kNormalization && norm_efficiency > 0) return norm_efficiency;
    if (k == MemoryKind::kGather && gather_efficiency > 0) return gather_efficiency;
    if (k == MemoryKind::kOptimizer && optimizer_efficiency > 0) return optimizer_efficiency;
    if (k == MemoryKind::kCopy && copy_efficiency > 0) return copy_efficiency;
    if (k == MemoryKind::kPermute && permute_efficiency > 0) return permute_efficiency;
    return efficiency;
  }
};

// Constants of the tile-level GEMM model (cost/tile_gemm.h); fitted by `dlsim-fit compute` on
// the same rows as the roofline curve. Everything else in that model is hardware (catalog).
struct TileCalibration {
  // Fraction of an SM's tensor-core peak the MMA main loop sustains (issue slots, bank
  // conflicts, clock under load).
  double mma_efficiency = 0.85;
  // Fraction of HBM bandwidth reached by the operand stream.
  double hbm_efficiency = 0.8;
  Duration launch = Duration::Nanos(4'000);       // per kernel
  Duration tile_overhead = Duration::Nanos(500);  // per wave: prologue fill, epilogue, scheduling
  // Global-memory load latency the multistage pipeline hides with stages - 1 loads in flight.
  // Microbenchmarks (Jia et al., "Dissecting the NVIDIA Volta/Turing GPU architecture via
  // microbenchmarking", 2018/2019; similar on Ampere): ~400-600 cycles at ~1.4 GHz.
  Duration memory_latency = Duration::Nanos(450);
};

struct ArchCalibration {
  std::string architecture;                         // "ampere", "hopper", ... (matches GpuSpec::architecture)
  std::string source;                               // where the constants come from
  int tile_m = 128;                                 // output tile of one thread block (CTA), rows
  int tile_n = 128;                                 // output tile, columns
  Duration gemm_overhead = Duration::Nanos(5'000);  // per GEMM kernel (launch and tail)
  std::map<hw::DType, GemmCalibration> gemm;        // by input data type
  GemmAlignmentCalibration gemm_alignment;  // misaligned operands (data/calibration/gemm_alignment.yaml)
  SplitKCalibration split_k;                // split-K reduction kernels (data/calibration/gemm_measured.yaml)
  AttentionCalibration attention;
  // Measured kernel families (data/calibration/attention_backends.yaml); a family without an entry
  // is priced with `attention`.
  std::map<AttentionBackend, AttentionCalibration> attention_backends;
  AttentionBackend pytorch_default = AttentionBackend::kModel;  // SDPA's default family here
  MemoryBoundCalibration memory;
  TileCalibration tile;

  // The curve for `dt`: its own entry, else the closest one (fp16 <-> bf16; tf32/fp32 use
  // the 16-bit curve; int8 uses fp8; fp8 uses 0.85x the 16-bit max_efficiency).
  GemmCalibration Gemm(hw::DType dt) const;
  // The constants of family `b` (kPytorchDefault resolved through pytorch_default), else `attention`.
  const AttentionCalibration& Attention(AttentionBackend b) const;
};

// The GEMM curve measured on one GPU (data/calibration/gemm_measured.yaml): it replaces that GPU's
// architecture's GEMM constants (the curves of the dtypes it has, the per-kernel overhead, the alignment
// penalty and split-K) for that GPU only; its other constants (attention, memory, tile) stay the
// architecture's.
struct GpuGemmCalibration {
  std::string gpu;           // catalog name (hw::GpuSpec::name)
  std::string architecture;  // the GPU's architecture (training calibrations reach it through it)
  std::string source;
  Duration gemm_overhead = Duration::Nanos(5'000);
  std::map<hw::DType, GemmCalibration> gemm;  // by input data type; a dtype without an entry keeps the arch's
  GemmAlignmentCalibration gemm_alignment;
  SplitKCalibration split_k;
};

// Measured attention families of an architecture compute.yaml has no entry for (attention_backends*.yaml):
// ResolveArchCalibration() lays them over DefaultArchCalibration(), so the families are measured while the
// rest of the architecture stays the fallback.
struct ArchFamilyOverlay {
  std::string architecture;
  std::string source;
  std::map<AttentionBackend, AttentionCalibration> attention_backends;
  AttentionBackend pytorch_default = AttentionBackend::kModel;
};

struct TreeEnsemble;  // cost/tree_ensemble.h

struct ComputeCalibration {
  std::string source;  // header of the file it came from
  std::vector<ArchCalibration> archs;
  std::vector<GpuGemmCalibration> gpu_gemms;  // GPUs with a measured GEMM curve of their own
  // Architectures without an entry in `archs` whose attention families were measured.
  std::vector<ArchFamilyOverlay> family_overlays;
  // The learned GEMM latency model ("learned" compute model; cost/learned_fit.h fits it), or
  // null when none is loaded (io loads data/calibration/learned_gemm.txt). Shared, immutable.
  std::shared_ptr<const TreeEnsemble> learned_gemm;

  // The pointer lives as long as this calibration; asking a temporary for it does not compile.
  const ArchCalibration* FindArchOrNull(std::string_view architecture) const&;
  const ArchCalibration* FindArchOrNull(std::string_view architecture) const&& = delete;
};

// Fallback for an architecture without calibration: the mean of the calibrated architectures'
// dimensionless constants (efficiencies, k_half), tiles sized from the SM count, default
// overheads; the built-in defaults above when `cal` is empty. Documented in docs/cost-model.md.
ArchCalibration DefaultArchCalibration(const hw::GpuSpec& gpu, const ComputeCalibration& cal);

// The calibration entry for gpu.architecture, or DefaultArchCalibration() with the architecture's measured
// attention families (cal.family_overlays) over it.
ArchCalibration ArchOrFallback(const hw::GpuSpec& gpu, const ComputeCalibration& cal);

// ArchOrFallback() with the GPU's own measured GEMM curve (cal.gpu_gemms) over it where it has one.
ArchCalibration ResolveArchCalibration(const hw::GpuSpec& gpu, const ComputeCalibration& cal);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_COMPUTE_CALIBRATION_H_
