#include "dlsim/cost/sparse_gemm.h"

#include <algorithm>
#include <cmath>

namespace dlsim::cost {

double SparseExtractionSeconds(const GemmShape& s, double sparsity, const SparseWeightFormat& format,
                               const ArchCalibration& arch, const DeviceRates& r) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return 0.0;
  const double nonzeros =
      (1.0 - sparsity) * static_cast<double>(s.k) * static_cast<double>(s.n) * static_cast<double>(s.batch);
  const double m_tiles = std::ceil(static_cast<double>(s.m) / arch.tile_m);
  return nonzeros * m_tiles / (r.sms * format.extract_nonzeros_per_sm_s);
}

double SparseWeightGemmSeconds(const GemmShape& s, double dtype_bytes, double sparsity,
                               const SparseWeightFormat& format, const ArchCalibration& arch,
                               const GemmCalibration& g, const DeviceRates& r) {
  if (s.m <= 0 || s.n <= 0 || s.k <= 0 || s.batch <= 0) return 0.0;
  const double m = static_cast<double>(s.m), n = static_cast<double>(s.n), k = static_cast<double>(s.k);
  const double batch = static_cast<double>(s.batch);
  // The dense kernel without its memory term gives the compute time (memory set to zero by an
  // unbounded bandwidth), then the compressed bytes set the memory term.
  DeviceRates compute_only = r;
  compute_only.hbm_bytes = INFINITY;
  const double compute = GemmSeconds(s, dtype_bytes, arch, g, compute_only) - arch.gemm_overhead.ToSeconds();
  const double bytes =
      ((m * k + m * n) * dtype_bytes + (1.0 - sparsity) * k * n * format.bytes_per_nonzero) * batch;
  const double memory = bytes / (r.hbm_bytes * g.mem_efficiency);
  return arch.gemm_overhead.ToSeconds() + std::max(compute, memory) +
         SparseExtractionSeconds(s, sparsity, format, arch, r);
}

}  // namespace dlsim::cost
