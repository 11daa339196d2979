// One GPU's GEMM curve fit; see the header.
#include "gemm_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
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

// A measured GEMM: its shape and measured seconds.
struct Point {
  cost::GemmShape shape;
  double t = 0;
};

struct Rows {
  std::vector<Point> half, fp8;  // bf16/fp16 and fp8 GEMMs
};

Result<Rows> ReadGemms(const std::vector<std::string>& ops_csvs) {
  Rows out;
  for (const std::string& path : ops_csvs) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<cost::KernelOp> ops, io::ReadKernelOpsCsv(path));
    for (const cost::KernelOp& op : ops) {
      if (op.kind != cost::KernelOpKind::kGemm || !op.measured_ms) continue;
      const Point p{op.gemm, *op.measured_ms * 1e-3};
      if (op.dtype == hw::DType::kBf16 || op.dtype == hw::DType::kFp16) out.half.push_back(p);
      if (op.dtype == hw::DType::kFp8) out.fp8.push_back(p);
    }
  }
  return out;
}

// What one fit varies: the arch (overhead, alignment) and the dtype's curve.
struct Curve {
  cost::ArchCalibration arch;
  cost::GemmCalibration g;
};

double Mape(const std::vector<Point>& pts, const Curve& c, const cost::DeviceRates& r, double bytes) {
  double sum = 0;
  for (const Point& p : pts) sum += std::fabs(cost::GemmSeconds(p.shape, bytes, c.arch, c.g, r) / p.t - 1);
  return pts.empty() ? 0 : 100 * sum / static_cast<double>(pts.size());
}

// The constants a parameter vector sets (its log): the curve's four, then for 16-bit rows the overhead (us)
// and the misaligned curve's five (compute and memory exponents, overhead us, k_half, tiles_half).
constexpr size_t kCurveParams = 4, kHalfParams = 10;

Curve Decode(const std::vector<double>& z, Curve c) {
  std::vector<double> x(z.size());
  std::transform(z.begin(), z.end(), x.begin(), [](double v) { return std::exp(v); });
  c.g = {.max_efficiency = x[0], .k_half = x[1], .tiles_half = x[2], .mem_efficiency = x[3]};
  if (x.size() < kHalfParams) return c;
  c.arch.gemm_overhead = Seconds(x[4] * 1e-6);
  c.arch.gemm_alignment = {.compute_exponent = x[5],
                           .memory_exponent = x[6],
                           .overhead = Seconds(x[7] * 1e-6),
                           .k_half = x[8],
                           .tiles_half = x[9]};
  return c;
}

// The least-MAPE constants from three starts (the first: `start`, the shipped curve), each Nelder-Mead run
// twice in log space; efficiencies above 1 are refused.
Curve Minimize(const std::vector<Point>& pts, const Curve& start, size_t n, const cost::DeviceRates& r,
               double bytes) {
  const cost::GemmAlignmentCalibration& a = start.arch.gemm_alignment;
  const std::array<std::array<double, kHalfParams>, 3> starts = {{
      {start.g.max_efficiency, std::max(1.0, start.g.k_half), start.g.tiles_half, start.g.mem_efficiency,
       start.arch.gemm_overhead.ToMicros(), std::max(0.1, a.compute_exponent),
       std::max(0.1, a.memory_exponent), std::max(0.1, a.overhead.ToMicros()), 64, 0.1},
      {0.75, 64, 0.3, 0.8, 4, 1.2, 0.3, 1, 200, 0.3},
      {0.7, 10, 0.2, 0.85, 5, 0.5, 1.0, 3, 500, 1},
  }};
  auto f = [&](const std::vector<double>& z) {
    const Curve c = Decode(z, start);
    if (c.g.max_efficiency > 1 || c.g.mem_efficiency > 1) return 1e9;
    return Mape(pts, c, r, bytes);
  };
  std::vector<double> best;
  double best_err = INFINITY;
  for (const auto& s : starts) {
    std::vector<double> z(n);
    std::transform(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n), z.begin(),
                   [](double v) { return std::log(v); });
    for (int round = 0; round < 2; ++round) z = NelderMead(f, z, std::vector<double>(n, 0.3), 4000);
    if (const double e = f(z); e < best_err) best_err = e, best = z;
  }
  return Decode(best, start);
}

std::string CurveYaml(const cost::GemmCalibration& g) {
  return fmt::format("{{max_efficiency: {:.4f}, k_half: {:.4g}, tiles_half: {:.4g}, mem_efficiency: {:.4f}}}",
                     g.max_efficiency, g.k_half, g.tiles_half, g.mem_efficiency);
}

// The header lines and the GPU's entry.
std::string Yaml(const std::string& command, const hw::GpuSpec& gpu, const std::string& sources,
                 const Curve& half, const Curve* fp8, const std::string& scores) {
  std::string y = fmt::format(
      "# GEMM curves measured on one GPU (cost::GpuGemmCalibration; docs/cost-model.md, \"GEMMs measured per "
      "GPU\").\n# Written by: {}\n# Fit rows only; data/profiles/h200-heldout is never read. MAPE of the fit "
      "rows, the architecture's shipped curve -> this one:\n{}",
      command, scores);
  y += fmt::format(
      "gpus:\n  {}:\n    architecture: {}\n    source: \"{} (torch.matmul(x, w.t()); fp8: "
      "torch._scaled_mm; triton.testing.do_bench medians, L2 flushed)\"\n",
      gpu.name, gpu.architecture, sources);
  y += fmt::format("    gemm_overhead_us: {:.3f}\n    gemm:\n      bf16: {}\n      fp16: {}\n",
                   half.arch.gemm_overhead.ToMicros(), CurveYaml(half.g), CurveYaml(half.g));
  if (fp8 != nullptr) y += fmt::format("      fp8: {}\n", CurveYaml(fp8->g));
  const cost::GemmAlignmentCalibration& a = half.arch.gemm_alignment;
  y += fmt::format(
      "    gemm_alignment: {{compute_exponent: {:.3f}, memory_exponent: {:.3f}, overhead_us: {:.3f}, k_half: "
      "{:.4g}, tiles_half: {:.4g}}}\n",
      a.compute_exponent, a.memory_exponent, a.overhead.ToMicros(), a.k_half, a.tiles_half);
  return y;
}

}  // namespace

Result<std::string> FitGpuGemm(const std::vector<std::string>& ops_csvs, const std::string& gpu_name,
                               const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(cost::ComputeCalibration cal, io::LoadDefaultComputeCalibration());
  DLSIM_ASSIGN_OR_RETURN(Rows rows, ReadGemms(ops_csvs));
  if (rows.half.empty()) return Error::InvalidArgument("no measured bf16/fp16 GEMM in the rows");
  std::erase_if(cal.gpu_gemms, [&](const cost::GpuGemmCalibration& g) { return g.gpu == gpu->name; });
  const cost::ArchCalibration shipped = cost::ResolveArchCalibration(*gpu, cal);
  const cost::DeviceRates r16 = cost::DeviceRates::Of(*gpu, hw::DType::kBf16);
  const Curve ship16{shipped, shipped.Gemm(hw::DType::kBf16)};
  const Curve half = Minimize(rows.half, ship16, kHalfParams, r16, 2.0);
  std::string scores = fmt::format("#   bf16/fp16: {} rows, {:.1f}% -> {:.1f}%\n", rows.half.size(),
                                   Mape(rows.half, ship16, r16, 2.0), Mape(rows.half, half, r16, 2.0));
  Curve fp8;
  if (!rows.fp8.empty()) {
    const cost::DeviceRates r8 = cost::DeviceRates::Of(*gpu, hw::DType::kFp8);
    const Curve ship8{shipped, shipped.Gemm(hw::DType::kFp8)};
    fp8 = Minimize(rows.fp8, {half.arch, ship8.g}, kCurveParams, r8, 1.0);
    scores += fmt::format("#   fp8: {} rows, {:.1f}% -> {:.1f}%\n", rows.fp8.size(),
                          Mape(rows.fp8, ship8, r8, 1.0), Mape(rows.fp8, fp8, r8, 1.0));
  }
  std::string sources;
  for (const std::string& p : ops_csvs) sources += (sources.empty() ? "" : " + ") + p;
  return Yaml(command, *gpu, sources, half, rows.fp8.empty() ? nullptr : &fp8, scores);
}

}  // namespace dlsim::fit
