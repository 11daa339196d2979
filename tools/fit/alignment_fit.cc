// GEMM alignment fit; see the header.
#include "alignment_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "gemm_rows.h"

namespace dlsim::fit {
namespace {

constexpr double kBytes = 2.0;  // bf16 / fp16

double Mape(const std::vector<GemmPoint>& pts, const cost::ArchCalibration& arch,
            const cost::DeviceRates& r) {
  return GemmMape(pts, arch, arch.Gemm(hw::DType::kBf16), r, kBytes);
}

// The constants with the least MAPE on `misaligned` (also in *err), from three starts of (compute exponent,
// memory exponent, overhead us, k_half, tiles_half) (MinimizePositive; the aligned rows do not move, so they
// need not be scored).
cost::GemmAlignmentCalibration Minimize(const std::vector<GemmPoint>& misaligned, cost::ArchCalibration arch,
                                        const cost::DeviceRates& r, double* err) {
  auto decode = [](const std::vector<double>& x) {
    return cost::GemmAlignmentCalibration{.compute_exponent = x[0],
                                          .memory_exponent = x[1],
                                          .overhead = Seconds(x[2] * 1e-6),
                                          .k_half = x[3],
                                          .tiles_half = x[4]};
  };
  auto f = [&](const std::vector<double>& x) {
    arch.gemm_alignment = decode(x);
    return Mape(misaligned, arch, r);
  };
  const cost::GemmCalibration g = arch.Gemm(hw::DType::kBf16);
  const std::vector<std::vector<double>> starts = {
      {0.9, 0.65, 2, std::max(1.0, g.k_half), g.tiles_half}, {1.2, 0.3, 1, 200, 0.3}, {0.5, 1.0, 3, 500, 1}};
  return decode(MinimizePositive(f, starts, 3000, err));
}

}  // namespace

Result<std::string> FitGemmAlignment(const std::vector<std::string>& ops_csvs, const std::string& gpu_name,
                                     const std::string& method, const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(cost::ComputeCalibration cal, io::LoadDefaultComputeCalibration());
  DLSIM_ASSIGN_OR_RETURN(GemmRows rows, ReadGemmRows(ops_csvs));
  const std::vector<GemmPoint>& pts = rows.half;
  std::vector<GemmPoint> misaligned;
  for (const GemmPoint& p : pts)
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
  const std::string sources = JoinSources(ops_csvs);
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
  y += fmt::format(
      "architectures:\n  {}:\n    source: \"{} on {} ({})\"\n", gpu->architecture, sources, gpu->name,
      method.empty() ? "how the rows were measured was not given (dlsim-fit gemm-alignment --method)"
                     : method);
  y += fmt::format(
      "    gemm_alignment: {{compute_exponent: {:.3f}, memory_exponent: {:.3f}, overhead_us: {:.3f}, "
      "k_half: {:.4g}, tiles_half: {:.4g}, fit_rows: {}, fit_mape_before_pct: {:.1f}, fit_mape_pct: "
      "{:.1f}}}\n",
      best.compute_exponent, best.memory_exponent, best.overhead.ToMicros(), best.k_half, best.tiles_half,
      pts.size(), before, after);
  return y;
}

}  // namespace dlsim::fit
