// Flash-LLM's unstructured-sparse weight GEMM (Xia et al., VLDB 2024, arXiv 2309.10285):
// "Load-as-Sparse, Compute-as-Dense". C[m,n] = A[m,k] W[k,n] with W pruned to `sparsity`: the
// kernel reads W from HBM in a compressed format (Tiled-CSL: every non-zero one 32-bit word, the
// fp16 value and its 16-bit position in the tile), expands each tile to dense in shared memory
// and runs the dense tensor-core MMA, multiplications by zero included. So
//   memory     = (m k + m n) batch x dtype_bytes + (1 - sparsity) k n batch x bytes_per_nonzero
//   compute    = the dense GEMM's (kernel_time.h: same FLOPs, wave fill and K efficiency)
//   extraction = non-zeros x ceil(m / tile_m) / (SMs x extract_nonzeros_per_sm_s)  (each M tile
//                row of CTAs expands W once)
//   time       = overhead + max(compute, memory) + extraction
// Decoding (small m) is memory-bound, so it gains up to 2 / (4 (1 - sparsity)) (2.5x at 80%); a
// large-m GEMM stays compute-bound and pays the extraction. At sparsity 0 with a 2-byte
// format the time is the dense GEMM's plus the extraction (tests/cost/sparse_gemm_test.cc).
//
//   double s = cost::SparseWeightGemmSeconds({.m = 16, .n = 28672, .k = 7168}, 2.0, 0.8, {}, arch,
//                                            arch.Gemm(hw::DType::kFp16), rates);
// Pure function; thread-safe.
#ifndef DLSIM_COST_SPARSE_GEMM_H_
#define DLSIM_COST_SPARSE_GEMM_H_

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/cost/kernel_time.h"

namespace dlsim::cost {

// SparseWeightFormat is declared in compute_model.h (ComputeModel::SparseWeightGemm takes it).

// Seconds of one sparse-weight GEMM (`s.k` x `s.n` is the weight). Preconditions: 0 <= sparsity
// < 1, bytes_per_nonzero > 0, extraction rate > 0. A zero-size GEMM costs nothing.
double SparseWeightGemmSeconds(const GemmShape& s, double dtype_bytes, double sparsity,
                               const SparseWeightFormat& format, const ArchCalibration& arch,
                               const GemmCalibration& g, const DeviceRates& r);

// The extraction term alone (seconds), for reports and the tests.
double SparseExtractionSeconds(const GemmShape& s, double sparsity, const SparseWeightFormat& format,
                               const ArchCalibration& arch, const DeviceRates& r);

}  // namespace dlsim::cost

#endif  // DLSIM_COST_SPARSE_GEMM_H_
