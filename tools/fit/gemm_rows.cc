// What the GEMM fits share; see the header.
#include "gemm_rows.h"

#include <algorithm>
#include <cmath>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/cost/kernel_op.h"
#include "dlsim/io/kernel_ops_csv.h"

namespace dlsim::fit {

Result<GemmRows> ReadGemmRows(const std::vector<std::string>& ops_csvs) {
  GemmRows out;
  for (const std::string& path : ops_csvs) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<cost::KernelOp> ops, io::ReadKernelOpsCsv(path));
    for (const cost::KernelOp& op : ops) {
      if (op.kind != cost::KernelOpKind::kGemm || !op.measured_ms) continue;
      const GemmPoint p{op.gemm, *op.measured_ms * 1e-3};
      if (op.dtype == hw::DType::kBf16 || op.dtype == hw::DType::kFp16) out.half.push_back(p);
      if (op.dtype == hw::DType::kFp8) out.fp8.push_back(p);
    }
  }
  return out;
}

double GemmMape(const std::vector<GemmPoint>& pts, const cost::ArchCalibration& arch,
                const cost::GemmCalibration& curve, const cost::DeviceRates& r, double bytes) {
  double sum = 0;
  for (const GemmPoint& p : pts)
    sum += std::fabs(cost::GemmSeconds(p.shape, bytes, arch, curve, r) / p.t - 1);
  return pts.empty() ? 0 : 100 * sum / static_cast<double>(pts.size());
}

std::vector<double> MinimizePositive(const std::function<double(const std::vector<double>&)>& f,
                                     const std::vector<std::vector<double>>& starts, int iterations,
                                     double* value) {
  auto exp_of = [](std::vector<double> z) {
    std::transform(z.begin(), z.end(), z.begin(), [](double v) { return std::exp(v); });
    return z;
  };
  auto in_logs = [&](const std::vector<double>& z) { return f(exp_of(z)); };
  std::vector<double> best;
  *value = INFINITY;
  for (const std::vector<double>& s : starts) {
    std::vector<double> z(s.size());
    std::transform(s.begin(), s.end(), z.begin(), [](double v) { return std::log(v); });
    for (int round = 0; round < 6; ++round)
      z = NelderMead(in_logs, z, std::vector<double>(z.size(), 0.3), iterations);
    if (const double e = in_logs(z); e < *value) *value = e, best = z;
  }
  return exp_of(best);
}

std::string JoinSources(const std::vector<std::string>& ops_csvs) {
  std::string sources;
  for (const std::string& p : ops_csvs) sources += (sources.empty() ? "" : " + ") + p;
  return sources;
}

}  // namespace dlsim::fit
