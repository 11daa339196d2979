// GEMM alignment fit; see the header.
#include "alignment_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <vector>

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

// The grid's constants with the least MAPE on `misaligned` (also in *err): each exponent 0-3 in steps of
// 0.05, the overhead 0-10 us in steps of 0.5 (the aligned rows do not move, so they need not be scored).
cost::GemmAlignmentCalibration GridSearch(const std::vector<Point>& misaligned, cost::ArchCalibration arch,
                                          const cost::DeviceRates& r, double* err) {
  cost::GemmAlignmentCalibration best;
  *err = INFINITY;
  for (int c = 0; c <= 60; ++c)
    for (int m = 0; m <= 60; ++m)
      for (int o = 0; o <= 20; ++o) {
        arch.gemm_alignment = {
            .compute_exponent = 0.05 * c, .memory_exponent = 0.05 * m, .overhead = Seconds(o * 0.5e-6)};
        const double e = Mape(misaligned, arch, r);
        if (e < *err) *err = e, best = arch.gemm_alignment;
      }
  return best;
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
  cost::ArchCalibration arch = cost::ResolveArchCalibration(*gpu, cal);
  arch.gemm_alignment = {};
  const cost::DeviceRates r = cost::DeviceRates::Of(*gpu, hw::DType::kBf16);
  const double before = Mape(pts, arch, r), before_mis = Mape(misaligned, arch, r);
  double best_err = 0;
  const cost::GemmAlignmentCalibration best = GridSearch(misaligned, arch, r, &best_err);
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
      "    gemm_alignment: {{compute_exponent: {:.2f}, memory_exponent: {:.2f}, overhead_us: {:.1f}, "
      "fit_rows: {}, fit_mape_before_pct: {:.1f}, fit_mape_pct: {:.1f}}}\n",
      best.compute_exponent, best.memory_exponent, best.overhead.ToSeconds() * 1e6, pts.size(), before,
      after);
  return y;
}

}  // namespace dlsim::fit
