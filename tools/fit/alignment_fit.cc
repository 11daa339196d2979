// GEMM alignment fit; see the header.
#include "alignment_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/cost/kernel_op.h"
#include "dlsim/cost/kernel_time.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kernel_ops_csv.h"

namespace dlsim::fit {
namespace {

// A measured 16-bit GEMM: its shape and measured seconds.
struct Point {
  cost::GemmShape shape;
  double t = 0;
};
constexpr double kBytes = 2.0;  // bf16 / fp16

Result<std::vector<Point>> ReadGemms(const std::vector<std::string>& ops_csvs) {
  std::vector<Point> out;
  for (const std::string& path : ops_csvs) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<cost::KernelOp> ops, io::ReadKernelOpsCsv(path));
    for (const cost::KernelOp& op : ops)
      if (op.kind == cost::KernelOpKind::kGemm && op.measured_ms &&
          (op.dtype == hw::DType::kBf16 || op.dtype == hw::DType::kFp16))
        out.push_back({op.gemm, *op.measured_ms * 1e-3});
  }
  return out;
}

double Mape(const std::vector<Point>& pts, const cost::ArchCalibration& arch, const cost::DeviceRates& r) {
  const cost::GemmCalibration g = arch.Gemm(hw::DType::kBf16);
  double sum = 0;
  for (const Point& p : pts) sum += std::fabs(cost::GemmSeconds(p.shape, kBytes, arch, g, r) / p.t - 1);
  return pts.empty() ? 0 : 100 * sum / static_cast<double>(pts.size());
}

// The constants with the least MAPE on `misaligned` (also in *err), from three starts, each Nelder-Mead run
// twice in the logs of (compute exponent, memory exponent, overhead us, k_half, tiles_half) (the aligned
// rows do not move, so they need not be scored).
cost::GemmAlignmentCalibration Minimize(const std::vector<Point>& misaligned, cost::ArchCalibration arch,
                                        const cost::DeviceRates& r, double* err) {
  auto decode = [](const std::vector<double>& z) {
    return cost::GemmAlignmentCalibration{.compute_exponent = std::exp(z[0]),
                                          .memory_exponent = std::exp(z[1]),
                                          .overhead = Seconds(std::exp(z[2]) * 1e-6),
                                          .k_half = std::exp(z[3]),
                                          .tiles_half = std::exp(z[4])};
  };
  auto f = [&](const std::vector<double>& z) {
    arch.gemm_alignment = decode(z);
    return Mape(misaligned, arch, r);
  };
  const cost::GemmCalibration g = arch.Gemm(hw::DType::kBf16);
  const std::vector<std::vector<double>> starts = {
      {0.9, 0.65, 2, std::max(1.0, g.k_half), g.tiles_half}, {1.2, 0.3, 1, 200, 0.3}, {0.5, 1.0, 3, 500, 1}};
  std::vector<double> best;
  *err = INFINITY;
  for (const std::vector<double>& s : starts) {
    std::vector<double> z(s.size());
    std::transform(s.begin(), s.end(), z.begin(), [](double v) { return std::log(v); });
    for (int round = 0; round < 2; ++round) z = NelderMead(f, z, std::vector<double>(z.size(), 0.3), 3000);
    if (const double e = f(z); e < *err) *err = e, best = z;
  }
  return decode(best);
}

}  // namespace

Result<std::string> FitGemmAlignment(const std::vector<std::string>& ops_csvs, const std::string& gpu_name,
                                     const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(cost::ComputeCalibration cal, io::LoadDefaultComputeCalibration());
  DLSIM_ASSIGN_OR_RETURN(std::vector<Point> pts, ReadGemms(ops_csvs));
  std::vector<Point> misaligned;
  for (const Point& p : pts)
    if (cost::GemmAlignmentBytes(p.shape, kBytes) < cost::kGemmVectorBytes) misaligned.push_back(p);
  if (misaligned.empty()) return Error::InvalidArgument("no misaligned bf16/fp16 GEMM in the rows");
  cal.gpu_gemms.clear();  // the architecture's curve, not a GPU's own (dlsim-fit gemm fits those whole)
  cost::ArchCalibration arch = cost::ResolveArchCalibration(*gpu, cal);
  arch.gemm_alignment = {};
  const cost::DeviceRates r = cost::DeviceRates::Of(*gpu, hw::DType::kBf16);
  const double before = Mape(pts, arch, r), before_mis = Mape(misaligned, arch, r);
  double best_err = 0;
  const cost::GemmAlignmentCalibration best = Minimize(misaligned, arch, r, &best_err);
  arch.gemm_alignment = best;
  const double after = Mape(pts, arch, r);
  std::string sources;
  for (const std::string& p : ops_csvs) sources += (sources.empty() ? "" : " + ") + p;
  std::string y = fmt::format(
      "# GEMMs with misaligned operands (cost::GemmAlignmentCalibration; docs/cost-model.md, \"Misaligned "
      "GEMMs\").\n"
      "# Written by: {}\n",
      command);
  y += fmt::format(
      "# Fitted on every measured bf16/fp16 GEMM of the rows ({} of them misaligned); "
      "data/profiles/h200-heldout is never read.\n",
      misaligned.size());
  y += fmt::format("# MAPE of the fit rows: all {:.1f}% -> {:.1f}%, misaligned {:.1f}% -> {:.1f}%.\n", before,
                   after, before_mis, best_err);
  y += fmt::format("architectures:\n  {}:\n    source: \"{} on {} (torch.matmul(x, w.t()), bf16)\"\n",
                   gpu->architecture, sources, gpu->name);
  y += fmt::format(
      "    gemm_alignment: {{compute_exponent: {:.3f}, memory_exponent: {:.3f}, overhead_us: {:.3f}, "
      "k_half: {:.4g}, tiles_half: {:.4g}, fit_rows: {}, fit_mape_before_pct: {:.1f}, fit_mape_pct: "
      "{:.1f}}}\n",
      best.compute_exponent, best.memory_exponent, best.overhead.ToMicros(), best.k_half, best.tiles_half,
      pts.size(), before, after);
  return y;
}

}  // namespace dlsim::fit
