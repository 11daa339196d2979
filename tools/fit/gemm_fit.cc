// One GPU's GEMM curve fit; see the header.
#include "gemm_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "gemm_rows.h"

namespace dlsim::fit {
namespace {

// What one fit varies: the arch (overhead, alignment) and the dtype's curve.
struct Curve {
  cost::ArchCalibration arch;
  cost::GemmCalibration g;
};

double Mape(const std::vector<GemmPoint>& pts, const Curve& c, const cost::DeviceRates& r, double bytes) {
  return GemmMape(pts, c.arch, c.g, r, bytes);
}

// The constants a parameter vector sets: the curve's four, then for 16-bit rows the overhead (us), the
// misaligned curve's six (compute and memory exponents, overhead us, k_half, tiles_half, memory overlap) and
// the split-K reduction's overhead (us; its min_k is the start's, chosen outside: FitHalf).
constexpr size_t kCurveParams = 4, kHalfParams = 12;
Curve Decode(const std::vector<double>& x, Curve c) {
  c.g = {.max_efficiency = x[0], .k_half = x[1], .tiles_half = x[2], .mem_efficiency = x[3]};
  if (x.size() < kHalfParams) return c;
  c.arch.gemm_overhead = Seconds(x[4] * 1e-6);
  c.arch.gemm_alignment = {.compute_exponent = x[5],
                           .memory_exponent = x[6],
                           .overhead = Seconds(x[7] * 1e-6),
                           .k_half = x[8],
                           .tiles_half = x[9],
                           .memory_overlap = x[10]};
  c.arch.split_k.overhead = Seconds(x[11] * 1e-6);
  return c;
}

// The least-MAPE constants from three starts (the first: `start`, the shipped curve; MinimizePositive);
// efficiencies and the memory overlap above 1 are refused.
Curve Minimize(const std::vector<GemmPoint>& pts, const Curve& start, size_t n, const cost::DeviceRates& r,
               double bytes, double* err) {
  const cost::GemmAlignmentCalibration& a = start.arch.gemm_alignment;
  std::vector<std::vector<double>> starts = {
      {start.g.max_efficiency, std::max(1.0, start.g.k_half), start.g.tiles_half, start.g.mem_efficiency,
       start.arch.gemm_overhead.ToMicros(), std::max(0.1, a.compute_exponent),
       std::max(0.1, a.memory_exponent), std::max(0.1, a.overhead.ToMicros()), 64, 0.1,
       std::min(0.9, a.memory_overlap), 1},
      {0.75, 64, 0.3, 0.8, 4, 1.2, 0.3, 1, 200, 0.3, 0.5, 2},
      {0.7, 10, 0.2, 0.85, 5, 0.5, 1.0, 3, 500, 1, 0.1, 0.5},
  };
  for (std::vector<double>& s : starts) s.resize(n);
  auto f = [&](const std::vector<double>& x) {
    const Curve c = Decode(x, start);
    if (c.g.max_efficiency > 1 || c.g.mem_efficiency > 1 || c.arch.gemm_alignment.memory_overlap > 1)
      return 1e9;
    return Mape(pts, c, r, bytes);
  };
  return Decode(MinimizePositive(f, starts, 4000, err), start);
}

// The 16-bit fit for each split-K min_k of a fixed grid (0: no split-K term), the least-MAPE one.
Curve FitHalf(const std::vector<GemmPoint>& pts, Curve start, const cost::DeviceRates& r) {
  Curve best;
  double best_err = 0;
  for (double min_k : {0.0, 256.0, 512.0, 1024.0, 2048.0}) {
    start.arch.split_k.min_k = min_k;
    double err = 0;
    Curve c = Minimize(pts, start, kHalfParams, r, 2.0, &err);
    if (min_k == 0) c.arch.split_k = {};
    if (min_k == 0 || err < best_err) {
      best = c;
      best_err = err;
    }
  }
  return best;
}

std::string CurveYaml(const cost::GemmCalibration& g) {
  return fmt::format("{{max_efficiency: {:.4f}, k_half: {:.4g}, tiles_half: {:.4g}, mem_efficiency: {:.4f}}}",
                     g.max_efficiency, g.k_half, g.tiles_half, g.mem_efficiency);
}

// The header lines and the GPU's entry.
std::string Yaml(const std::string& command, const hw::GpuSpec& gpu, const std::string& sources,
                 const std::string& method, const Curve& half, const Curve* fp8, const std::string& scores) {
  std::string y = fmt::format(
      "# GEMM curves measured on one GPU (cost::GpuGemmCalibration; docs/cost-model.md, \"GEMMs measured per "
      "GPU\").\n# Written by: {}\n# Fit rows only; data/profiles/h200-heldout is never read. MAPE of the fit "
      "rows, the architecture's shipped curve -> this one:\n{}",
      command, scores);
  y += fmt::format(
      "gpus:\n  {}:\n    architecture: {}\n    source: \"{} ({})\"\n", gpu.name, gpu.architecture, sources,
      method.empty() ? "how the rows were measured was not given (dlsim-fit gemm --method)" : method);
  y += fmt::format("    gemm_overhead_us: {:.3f}\n    gemm:\n      bf16: {}\n      fp16: {}\n",
                   half.arch.gemm_overhead.ToMicros(), CurveYaml(half.g), CurveYaml(half.g));
  if (fp8 != nullptr) y += fmt::format("      fp8: {}\n", CurveYaml(fp8->g));
  const cost::GemmAlignmentCalibration& a = half.arch.gemm_alignment;
  y += fmt::format(
      "    gemm_alignment: {{compute_exponent: {:.3f}, memory_exponent: {:.3f}, overhead_us: {:.3f}, k_half: "
      "{:.4g}, tiles_half: {:.4g}, memory_overlap: {:.3f}}}\n",
      a.compute_exponent, a.memory_exponent, a.overhead.ToMicros(), a.k_half, a.tiles_half, a.memory_overlap);
  const cost::SplitKCalibration& k = half.arch.split_k;
  if (k.min_k > 0)
    y += fmt::format("    split_k: {{overhead_us: {:.3f}, min_k: {:g}}}\n", k.overhead.ToMicros(), k.min_k);
  return y;
}

}  // namespace

Result<std::string> FitGpuGemm(const std::vector<std::string>& ops_csvs, const std::string& gpu_name,
                               const std::string& method, const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(cost::ComputeCalibration cal, io::LoadDefaultComputeCalibration());
  DLSIM_ASSIGN_OR_RETURN(GemmRows rows, ReadGemmRows(ops_csvs));
  if (rows.half.empty()) return Error::InvalidArgument("no measured bf16/fp16 GEMM in the rows");
  std::erase_if(cal.gpu_gemms, [&](const cost::GpuGemmCalibration& g) { return g.gpu == gpu->name; });
  const cost::ArchCalibration shipped = cost::ResolveArchCalibration(*gpu, cal);
  const cost::DeviceRates r16 = cost::DeviceRates::Of(*gpu, hw::DType::kBf16);
  const Curve ship16{shipped, shipped.Gemm(hw::DType::kBf16)};
  const Curve half = FitHalf(rows.half, ship16, r16);
  std::string scores = fmt::format("#   bf16/fp16: {} rows, {:.1f}% -> {:.1f}%\n", rows.half.size(),
                                   Mape(rows.half, ship16, r16, 2.0), Mape(rows.half, half, r16, 2.0));
  Curve fp8;
  if (!rows.fp8.empty()) {
    const cost::DeviceRates r8 = cost::DeviceRates::Of(*gpu, hw::DType::kFp8);
    const Curve ship8{shipped, shipped.Gemm(hw::DType::kFp8)};
    double err = 0;
    fp8 = Minimize(rows.fp8, {half.arch, ship8.g}, kCurveParams, r8, 1.0, &err);
    scores += fmt::format("#   fp8: {} rows, {:.1f}% -> {:.1f}%\n", rows.fp8.size(),
                          Mape(rows.fp8, ship8, r8, 1.0), Mape(rows.fp8, fp8, r8, 1.0));
  }
  return Yaml(command, *gpu, JoinSources(ops_csvs), method, half, rows.fp8.empty() ? nullptr : &fp8, scores);
}

}  // namespace dlsim::fit
