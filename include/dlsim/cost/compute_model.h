// Compute cost of one operator on one GPU: GEMMs, core attention and memory-bound kernels.
//
// A ComputeModel answers "how long does this kernel take on this GPU?" It is built for one
// GpuSpec and one ComputeCalibration (fitted constants, see compute_calibration.h and
// docs/cost-model.md) through the registry:
//
//   dlsim::cost::ComputeModelRegistry reg("compute-model");
//   dlsim::cost::RegisterComputeModels(reg);
//   auto model = reg.Create("roofline", gpu, calibration);   // Result<unique_ptr<ComputeModel>>
//   dlsim::Duration t = (*model)->Gemm({.m = 8192, .n = 8192, .k = 8192}, dlsim::hw::DType::kBf16);
//
// Models are immutable after construction; all methods are const and thread-safe. A model
// keeps a copy of what it needs from the GpuSpec and calibration (no borrowed references).
#ifndef DLSIM_COST_COMPUTE_MODEL_H_
#define DLSIM_COST_COMPUTE_MODEL_H_

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/units.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::cost {

// How a GEMM's operands are stored, which decides their leading dimensions: the rows cuBLAS loads along,
// whose alignment picks its kernel (cost/kernel_time.h, GemmAlignmentBytes).
enum class GemmLayout {
  // A[m,k] and C[m,n] row-major, B [k,n] or (nn.Linear's weight) [n,k]: k and n lead (a forward or an input
  // gradient; with nn.Linear's weight n leads only C, which is enough to misalign).
  kRowMajor,
  // C[m,n] = A^T B with A stored [k,m] and B [k,n] (a weight gradient, k the tokens): m and n lead.
  kWeightGradient,
  // A kernel priced as a GEMM that lays out its own operands (paged attention's KV blocks, a convolution's
  // implicit GEMM): aligned whatever the shape.
  kKernelManaged,
};

// C[m,n] = A[m,k] B[k,n], `batch` independent times (a batched GEMM is one kernel).
struct GemmShape {
  int64_t m = 0, n = 0, k = 0;
  int64_t batch = 1;
  GemmLayout layout = GemmLayout::kRowMajor;

  Flops flops() const;  // 2 m n k batch
  // Operands read once and the result written once: (m k + k n + m n) batch elements.
  double Elements() const;
};

// Sum of min(v, cap) over the whole numbers v = first..last (first <= last; cap <= 0: no cap): the keys a
// run of causal queries sees through a window of `cap` (or the key blocks of a run of query blocks).
double CappedSum(double first, double last, double cap);

// FlashAttention-style core attention, softmax(Q K^T) V, on one GPU. Grouped-query attention
// when kv_heads < heads. With `causal` and seq_q <= seq_kv the mask is bottom-right aligned
// (the queries are the last seq_q positions), so about half of the score matrix is computed.
// `window` > 0 (causal only): sliding-window attention, each query sees at most `window` keys (itself and the
// window - 1 before it); the kernel skips the key blocks wholly outside it (FlashAttention's window_size).
struct AttentionShape {
  int64_t batch = 1, heads = 1, kv_heads = 1, seq_q = 0, seq_kv = 0, head_dim = 128;
  bool causal = true;
  AttentionBackend backend = AttentionBackend::kModel;  // the kernel family (compute_calibration.h)
  int64_t window = 0;

  // Query-key pairs that are computed per head and sample (causal: seq_q*seq_kv - seq_q*(seq_q-1)/2; with
  // a window, sum over queries of min(visible keys, window)).
  double Pairs() const;
  Flops ForwardFlops() const;   // 4 * pairs * head_dim * heads * batch (QK^T and PV)
  Flops BackwardFlops() const;  // 2.5x forward (recomputed scores, dQ, dK, dV)
};

// How unstructured-sparse weights are stored and expanded (Flash-LLM; cost/sparse_gemm.h).
struct SparseWeightFormat {
  // Tiled-CSL: a 32-bit word per non-zero (fp16 value + 16-bit location in the tile), Flash-LLM
  // section 4 (our notes: ../shared/docs/research/serving_sims.md 4.4, [M]).
  double bytes_per_nonzero = 4.0;
  // Sparse-to-dense expansion rate of one SM, non-zeros per second: an assumption of 32 per
  // cycle (one 4-byte word read and one 2-byte shared-memory store per lane of a warp) at the
  // A100's 1.41 GHz boost clock. Not measured.
  double extract_nonzeros_per_sm_s = 32 * 1.41e9;
};

class ComputeModel {
 public:
  virtual ~ComputeModel() = default;
  // Duration of one GEMM kernel with inputs of type `dt` (accumulation in fp32).
  // Precondition: all dimensions >= 0; a zero-size GEMM costs nothing.
  virtual Duration Gemm(const GemmShape& s, hw::DType dt) const = 0;
  virtual Duration AttentionForward(const AttentionShape& s, hw::DType dt) const = 0;
  virtual Duration AttentionBackward(const AttentionShape& s, hw::DType dt) const = 0;
  // One variable-length kernel over several blocks (FlashAttention varlen, document-masked
  // packing): one launch for all. The default prices each block as its own kernel.
  virtual Duration AttentionForwardVarlen(const std::vector<AttentionShape>& blocks, hw::DType dt) const {
    Duration t;
    for (const auto& b : blocks) t += AttentionForward(b, dt);
    return t;
  }
  virtual Duration AttentionBackwardVarlen(const std::vector<AttentionShape>& blocks, hw::DType dt) const {
    Duration t;
    for (const auto& b : blocks) t += AttentionBackward(b, dt);
    return t;
  }
  // Memory-bound kernels (norms, activations, rotary, residual adds, dropout, optimizer):
  // `moved` = bytes read + written, `flops` = arithmetic on the vector units.
  virtual Duration MemoryBound(Bytes moved, Flops flops,
                               MemoryKind kind = MemoryKind::kElementwise) const = 0;
  // One GEMM whose weight operand (k x n) is pruned to `sparsity` and stored in `format`
  // (Flash-LLM's Load-as-Sparse, Compute-as-Dense; cost/sparse_gemm.h). The default prices the
  // dense GEMM (models without a sparse kernel).
  virtual Duration SparseWeightGemm(const GemmShape& s, hw::DType dt, double /*sparsity*/,
                                    const SparseWeightFormat& /*format*/) const {
    return Gemm(s, dt);
  }
  virtual std::string_view name() const = 0;
};

using ComputeModelRegistry = Registry<ComputeModel, const hw::GpuSpec&, const ComputeCalibration&>;

// Registers "roofline" (the calibrated analytical model), "tile" (CUTLASS-style tile model with
// Bolt's template search for GEMMs), "learned" (the tile model corrected by gradient-boosted
// trees fitted on measured profiles) and "constant" (a fake for tests:
// every call costs kConstantModelCallTime, zero-size work costs nothing).
void RegisterComputeModels(ComputeModelRegistry& reg);

inline constexpr Duration kConstantModelCallTime = Duration::Nanos(10'000);

// Direct constructors, for code that does not go through the registry.
std::unique_ptr<ComputeModel> MakeRooflineComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal);
// GEMMs by template search over the tile-level kernel model (tile_search.h); attention and
// memory-bound kernels as the roofline model; GEMMs too on a device where no template fits.
// Thread-safe (an internal memo under a mutex).
std::unique_ptr<ComputeModel> MakeTileComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal);
// GEMMs by the tile model corrected by the learned tree ensemble in cal.learned_gemm (CDMPP's
// idea; cost/gemm_features.h); the rest as the roofline model. Thread-safe.
std::unique_ptr<ComputeModel> MakeLearnedComputeModel(const hw::GpuSpec& gpu, const ComputeCalibration& cal);
std::unique_ptr<ComputeModel> MakeConstantComputeModel(Duration per_call = kConstantModelCallTime);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_COMPUTE_MODEL_H_
