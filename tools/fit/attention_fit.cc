// Attention family fit; see the header.
#include "attention_fit.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <vector>

#include "dlsim/cost/kernel_op.h"
#include "dlsim/cost/kernel_time.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kernel_ops_csv.h"

namespace dlsim::fit {
namespace {

// One measured kernel: its time at efficiency 1 with no overhead and no per-CTA cost (a), the key
// positions one of its CTAs iterates over (keys), and the measured time (t).
struct Point {
  double a = 0, keys = 1, t = 0;
  bool backward = false;
  double d = 128;  // head dimension
};

// FlashAttention-2 compiles head dimensions 32, 64, ..., 256 (flash-attention csrc/flash_attn/src/
// flash_fwd_hdim*.cu): a head dimension runs padded to the next multiple of 32. Not fitted.
int HeadDimStep(const std::string& family) { return family == "flash" ? 32 : 0; }

struct Family {
  std::vector<Point> fit, held;  // even and odd rows of the family, per direction in file order
};

struct Constants {
  double overhead_s = 0, kv_half = 0, head_dim_half = 0, x_fwd = 1, x_bwd = 1;  // x = 1 / efficiency
  int step = 0;
  double Work(const Point& p) const {
    const double padded = step > 0 ? std::ceil(p.d / step) * step : p.d;
    return p.a * (1 + kv_half / p.keys) * (padded + head_dim_half) / p.d;
  }
  double Predict(const Point& p) const { return overhead_s + Work(p) * (p.backward ? x_bwd : x_fwd); }
};

// With the overhead and kv_half fixed, the x minimising sum((o + w x) / t - 1)^2 over one direction, x >= 1.
double BestX(const std::vector<Point>& pts, bool backward, const Constants& c) {
  const double o = c.overhead_s;
  double num = 0, den = 0;
  for (const Point& p : pts) {
    if (p.backward != backward) continue;
    const double v = c.Work(p) / p.t;
    num += v * (1 - o / p.t);
    den += v * v;
  }
  return den > 0 ? std::max(1.0, num / den) : 1.0;
}

double Mape(const std::vector<Point>& pts, const Constants& c) {
  double sum = 0;
  for (const Point& p : pts) sum += std::fabs(c.Predict(p) / p.t - 1);
  return pts.empty() ? 0 : 100 * sum / pts.size();
}

// Overhead on a 0.5 us grid up to 30 us (a launch and tail, not more) and kv_half on a 16-key grid up
// to 4096, the two x in closed form at each: the least squared relative error.
// head_dim_half on an 8 grid up to 256.
Constants FitFamily(const std::vector<Point>& pts, int step) {
  Constants best;
  double best_err = INFINITY;
  for (int dh = 0; dh <= 32; ++dh)
    for (int h = 0; h <= 128; ++h)
      for (int i = 0; i <= 60; ++i) {
        Constants c{.overhead_s = i * 0.5e-6, .kv_half = 32.0 * h, .head_dim_half = 8.0 * dh, .step = step};
        c.x_fwd = BestX(pts, false, c);
        c.x_bwd = BestX(pts, true, c);
        double err = 0;
        for (const Point& p : pts) err += std::pow(c.Predict(p) / p.t - 1, 2);
        if (err < best_err) best_err = err, best = c;
      }
  return best;
}

Result<std::map<std::string, Family>> ReadFamilies(const std::vector<std::string>& ops_csvs,
                                                   const hw::GpuSpec& gpu) {
  std::vector<cost::KernelOp> ops;
  for (const std::string& path : ops_csvs) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<cost::KernelOp> more, io::ReadKernelOpsCsv(path));
    ops.insert(ops.end(), more.begin(), more.end());
  }
  cost::ArchCalibration unit, probe;  // efficiency 1, no overhead: the time is the work alone
  unit.attention = {.fwd_efficiency = 1, .bwd_efficiency = 1, .overhead = Duration()};
  probe.attention = unit.attention;
  probe.attention.kv_half = 1000;  // a(1 + 1000 / keys): gives the keys per CTA the model uses
  const cost::DeviceRates r = cost::DeviceRates::Of(gpu, hw::DType::kBf16);
  std::map<std::string, Family> out;
  std::map<std::string, int> seen;
  for (const cost::KernelOp& op : ops) {
    const bool bwd = op.kind == cost::KernelOpKind::kAttentionBackward;
    if ((op.kind != cost::KernelOpKind::kAttentionForward && !bwd) || !op.measured_ms ||
        op.backend == "default")
      continue;
    cost::AttentionShape s = op.attention;
    s.backend = cost::AttentionBackend::kModel;
    const double a = cost::AttentionSeconds(s, bwd, unit, r), ah = cost::AttentionSeconds(s, bwd, probe, r);
    const Point p{a, 1000 * a / (ah - a), *op.measured_ms * 1e-3, bwd, static_cast<double>(s.head_dim)};
    const std::string key = op.backend + (bwd ? "/bwd" : "/fwd");
    (seen[key]++ % 2 == 0 ? out[op.backend].fit : out[op.backend].held).push_back(p);
  }
  return out;
}

}  // namespace

Result<std::string> FitAttentionBackends(const std::vector<std::string>& ops_csvs,
                                         const std::string& gpu_name, const std::string& pytorch_default,
                                         const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(auto families, ReadFamilies(ops_csvs, *gpu));
  std::string sources;
  for (const std::string& p : ops_csvs) sources += (sources.empty() ? "" : " + ") + p;
  if (!families.count(pytorch_default))
    return Error::InvalidArgument("--pytorch-default '" + pytorch_default + "' is not a family of " +
                                  sources);
  std::string y = fmt::format(
      "# Attention kernel families (cost::AttentionBackend; docs/cost-model.md, \"Attention by kernel "
      "family\").\n"
      "# Written by: {}\n# Fitted on the even rows of each family and direction, scored on the odd rows (out "
      "of\n"
      "# fold); data/profiles/h200-heldout is never read. Efficiencies are fractions of the dense bf16 "
      "peak.\n"
      "architectures:\n  {}:\n    source: \"{} on {} ({})\"\n    pytorch_default: {}\n    "
      "attention_backends:\n",
      command, gpu->architecture, sources, gpu->name, "SDPA forward and backward, L2 flushed",
      pytorch_default);
  for (const auto& [name, f] : families) {
    const Constants c = FitFamily(f.fit, HeadDimStep(name));
    y += fmt::format(
        "      {}: {{fwd_efficiency: {:.4f}, bwd_efficiency: {:.4f}, overhead_us: {:.1f}, kv_half: {:g}, "
        "head_dim_step: {}, head_dim_half: {:g}, fit_rows: {}, fit_mape_pct: {:.1f}, out_of_fold_rows: {}, "
        "out_of_fold_mape_pct: {:.1f}}}\n",
        name, 1 / c.x_fwd, 1 / c.x_bwd, c.overhead_s * 1e6, c.kv_half, c.step, c.head_dim_half, f.fit.size(),
        Mape(f.fit, c), f.held.size(), Mape(f.held, c));
  }
  return y;
}

}  // namespace dlsim::fit
