// Attention family fit; see the header.
#include "attention_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "dlsim/cost/kernel_op.h"
#include "dlsim/cost/kernel_time.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kernel_ops_csv.h"

namespace dlsim::fit {
namespace {

// Which call a measured time covers: the forward, the backward, or both timed together (flash-attention's
// published "forward + backward" speeds).
enum class Dir { kFwd, kBwd, kBoth };

// One measured kernel: its shape, direction and measured time (s).
struct Point {
  cost::AttentionShape shape;
  Dir dir = Dir::kFwd;
  double t = 0;
};

// The model's time of `p` under `arch`: a paired point is its forward plus its backward.
double Price(const Point& p, const cost::ArchCalibration& arch, const cost::DeviceRates& r) {
  const double bwd = p.dir == Dir::kFwd ? 0 : cost::AttentionSeconds(p.shape, true, arch, r);
  return bwd + (p.dir == Dir::kBwd ? 0 : cost::AttentionSeconds(p.shape, false, arch, r));
}

// Per-call overheads in a point's time: two for a paired point.
double Calls(Dir d) { return d == Dir::kBoth ? 2 : 1; }

// FlashAttention-2 compiles head dimensions 32, 64, ..., 256 (flash-attention csrc/flash_attn/src/
// flash_fwd_hdim*.cu): a head dimension runs padded to the next multiple of 32. Not fitted.
int HeadDimStep(const std::string& family) { return family == "flash" ? 32 : 0; }

// PyTorch's math path computes the whole score matrix whatever the mask
// (cost::AttentionCalibration::unfused).
bool Unfused(const std::string& family) { return family == "math"; }

struct Family {
  std::vector<Point> fit, held;  // even and odd rows of the family, per direction in file order
};

// The model's own time of each point (cost::AttentionSeconds) at efficiency 1 and no overhead, under the
// shape terms of `c`: the time is then overhead + work / efficiency, linear in 1 / efficiency.
std::vector<double> Work(const std::vector<Point>& pts, cost::AttentionCalibration c,
                         const cost::DeviceRates& r) {
  c.fwd_efficiency = c.bwd_efficiency = 1;
  c.overhead = Duration();
  cost::ArchCalibration arch;
  arch.attention = c;
  std::vector<double> w;
  for (const Point& p : pts) w.push_back(Price(p, arch, r));
  return w;
}

// With the overhead and the work fixed, the 1 / efficiency (>= 1) minimising sum((o + w x) / t - 1)^2 over
// one direction (o per call: twice for a paired point).
double BestX(const std::vector<Point>& pts, const std::vector<double>& w, Dir dir, double o) {
  double num = 0, den = 0;
  o *= Calls(dir);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (pts[i].dir != dir) continue;
    const double v = w[i] / pts[i].t;
    num += v * (1 - o / pts[i].t);
    den += v * v;
  }
  return den > 0 ? std::max(1.0, num / den) : 1.0;
}

// MAPE (%) of `c` on `pts`, priced by the model itself.
double Mape(const std::vector<Point>& pts, const cost::AttentionCalibration& c, const cost::DeviceRates& r) {
  cost::ArchCalibration arch;
  arch.attention = c;
  double sum = 0;
  for (const Point& p : pts) sum += std::fabs(Price(p, arch, r) / p.t - 1);
  return pts.empty() ? 0 : 100 * sum / pts.size();
}

// True when every point is a forward + backward pair.
bool Paired(const std::vector<Point>& pts) {
  return !pts.empty() &&
         std::all_of(pts.begin(), pts.end(), [](const Point& p) { return p.dir == Dir::kBoth; });
}

// The number of distinct head dimensions among the points of `dir`.
size_t HeadDims(const std::vector<Point>& pts, Dir dir) {
  std::set<int64_t> dims;
  for (const Point& p : pts)
    if (p.dir == dir) dims.insert(p.shape.head_dim);
  return dims.size();
}

// One direction's constants: kv_half on a 32-key grid up to 4096, head_dim_half on an 8 grid up to 256 unless
// `head_dim_half` fixes it, the overhead on a 0.5 us grid up to 30 us (a launch and tail, not more) unless
// `overhead` (s) fixes it, the efficiency in closed form at each: the least squared relative error over the
// points of that direction. Returned in the forward fields (a paired direction: both directions share them).
cost::AttentionCalibration FitDirection(const std::vector<Point>& pts, Dir dir, int step, bool unfused,
                                        const cost::DeviceRates& r, std::optional<double> overhead,
                                        std::optional<double> head_dim_half = std::nullopt) {
  cost::AttentionCalibration best;
  double best_err = INFINITY;
  for (int dh = 0; dh <= (head_dim_half ? 0 : 32); ++dh)
    for (int h = 0; h <= 128; ++h) {
      cost::AttentionCalibration c;
      c.kv_half = 32.0 * h;
      c.head_dim_step = step;
      c.head_dim_half = head_dim_half.value_or(8.0 * dh);
      c.unfused = unfused;
      c.bwd_kv_half = c.kv_half;
      c.bwd_head_dim_half = c.head_dim_half;
      const std::vector<double> w = Work(pts, c, r);
      for (int i = 0; i <= (overhead ? 0 : 60); ++i) {  // a fixed overhead is one candidate, not 61
        const double o = overhead.value_or(i * 0.5e-6);
        const double x = BestX(pts, w, dir, o);
        double err = 0;  // the model's time is o + w x (Work), so no re-pricing per overhead
        for (size_t k = 0; k < pts.size(); ++k)
          if (pts[k].dir == dir) err += std::pow((Calls(dir) * o + w[k] * x) / pts[k].t - 1, 2);
        if (err < best_err) {
          best_err = err;
          best = c;
          best.overhead = Seconds(o);
          best.fwd_efficiency = 1 / x;
        }
      }
    }
  return best;
}

// The forward and the backward kernel each fitted on its own points (two kernels, each with its own
// prologue and epilogue); the backward's in the bwd_ fields. The backward keeps the forward's per-call
// overhead: fitted freely it takes 47-59 us, which is the isolated benchmark's launch gaps between a backward
// call's kernels (the smallest measured call is 103 us), not GPU time: in the profiled H200 steps GPT-2 XL's
// whole backward call is 86 us of kernels (docs/cost-model.md).
// A family measured only as forward + backward pairs has one set of constants for both directions: the split
// between them is not measured. A backward measured at one head dimension cannot tell its head_dim_half from
// its efficiency (any value fits those rows equally, and extrapolates differently), so it takes the
// forward's.
cost::AttentionCalibration FitFamily(const std::vector<Point>& pts, int step, bool unfused,
                                     const cost::DeviceRates& r) {
  if (Paired(pts)) {
    cost::AttentionCalibration c = FitDirection(pts, Dir::kBoth, step, unfused, r, std::nullopt);
    c.bwd_efficiency = c.fwd_efficiency;
    c.bwd_overhead = c.overhead;
    c.bwd_kv_half = c.kv_half;
    c.bwd_head_dim_half = c.head_dim_half;
    return c;
  }
  cost::AttentionCalibration c = FitDirection(pts, Dir::kFwd, step, unfused, r, std::nullopt);
  const std::optional<double> one_dim =
      HeadDims(pts, Dir::kBwd) == 1 ? std::optional<double>(c.head_dim_half) : std::nullopt;
  const cost::AttentionCalibration b =
      FitDirection(pts, Dir::kBwd, step, unfused, r, c.overhead.ToSeconds(), one_dim);
  c.bwd_efficiency = b.fwd_efficiency;
  c.bwd_overhead = b.overhead;
  c.bwd_kv_half = b.kv_half;
  c.bwd_head_dim_half = b.head_dim_half;
  return c;
}

std::optional<Dir> DirOf(cost::KernelOpKind k) {
  if (k == cost::KernelOpKind::kAttentionForward) return Dir::kFwd;
  if (k == cost::KernelOpKind::kAttentionBackward) return Dir::kBwd;
  if (k == cost::KernelOpKind::kAttentionForwardBackward) return Dir::kBoth;
  return std::nullopt;
}

Result<std::map<std::string, Family>> ReadFamilies(const std::vector<std::string>& ops_csvs) {
  std::vector<cost::KernelOp> ops;
  for (const std::string& path : ops_csvs) {
    DLSIM_ASSIGN_OR_RETURN(std::vector<cost::KernelOp> more, io::ReadKernelOpsCsv(path));
    ops.insert(ops.end(), more.begin(), more.end());
  }
  std::map<std::string, Family> out;
  std::map<std::string, int> seen;
  for (const cost::KernelOp& op : ops) {
    const std::optional<Dir> dir = DirOf(op.kind);
    if (!dir || !op.measured_ms || op.backend == "default") continue;
    Point p{op.attention, *dir, *op.measured_ms * 1e-3};
    p.shape.backend = cost::AttentionBackend::kModel;  // priced with the calibration under fit
    const std::string key = op.backend + (*dir == Dir::kFwd ? "/fwd" : *dir == Dir::kBwd ? "/bwd" : "/both");
    (seen[key]++ % 2 == 0 ? out[op.backend].fit : out[op.backend].held).push_back(p);
  }
  return out;
}

// The file's comment header, architecture and source lines.
std::string Header(const std::string& command, const hw::GpuSpec& gpu, const std::string& sources,
                   const std::string& pytorch_default, bool paired) {
  const char* how = paired ? "forward + backward timed together; a family's one efficiency, kv_half and "
                             "head_dim_half stand for both directions, whose split is not measured"
                           : "SDPA forward and backward, L2 flushed";
  return fmt::format(
      "# Attention kernel families (cost::AttentionBackend; docs/cost-model.md, \"Attention by kernel "
      "family\").\n"
      "# Written by: {}\n# Fitted on the even rows of each family and direction, scored on the odd rows (out "
      "of\n"
      "# fold); data/profiles/h200-heldout is never read. Efficiencies are fractions of the dense bf16 "
      "peak.\n"
      "architectures:\n  {}:\n    source: \"{} on {} ({})\"\n    pytorch_default: {}\n    "
      "attention_backends:\n",
      command, gpu.architecture, sources, gpu.name, how, pytorch_default);
}

// One family's fitted constants and its in-fold and out-of-fold MAPE.
std::string FamilyLine(const std::string& name, const Family& f, const cost::DeviceRates& r) {
  const cost::AttentionCalibration c = FitFamily(f.fit, HeadDimStep(name), Unfused(name), r);
  return fmt::format(
      "      {}: {{fwd_efficiency: {:.4f}, bwd_efficiency: {:.4f}, overhead_us: {:.1f}, kv_half: {:g}, "
      "head_dim_step: {}, head_dim_half: {:g}, bwd_overhead_us: {:.1f}, bwd_kv_half: {:g}, "
      "bwd_head_dim_half: "
      "{:g}, {}fit_rows: {}, fit_mape_pct: {:.1f}, out_of_fold_rows: {}, out_of_fold_mape_pct: {:.1f}}}\n",
      name, c.fwd_efficiency, c.bwd_efficiency, c.overhead.ToSeconds() * 1e6, c.kv_half, c.head_dim_step,
      c.head_dim_half, c.bwd_overhead->ToSeconds() * 1e6, *c.bwd_kv_half, *c.bwd_head_dim_half,
      c.unfused ? "unfused: true, " : "", f.fit.size(), Mape(f.fit, c, r), f.held.size(), Mape(f.held, c, r));
}

}  // namespace

Result<std::string> FitAttentionBackends(const std::vector<std::string>& ops_csvs,
                                         const std::string& gpu_name, const std::string& pytorch_default,
                                         const std::string& command) {
  DLSIM_ASSIGN_OR_RETURN(catalog::Catalogs cat, io::LoadCatalogs({}));
  DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, cat.hardware.FindGpu(gpu_name));
  DLSIM_ASSIGN_OR_RETURN(auto families, ReadFamilies(ops_csvs));
  const cost::DeviceRates r = cost::DeviceRates::Of(*gpu, hw::DType::kBf16);
  std::string sources;
  for (const std::string& p : ops_csvs) sources += (sources.empty() ? "" : " + ") + p;
  if (!families.count(pytorch_default))
    return Error::InvalidArgument("--pytorch-default '" + pytorch_default + "' is not a family of " +
                                  sources);
  bool all_paired = true;
  for (const auto& [name, f] : families) all_paired = all_paired && Paired(f.fit);
  std::string y = Header(command, *gpu, sources, pytorch_default, all_paired);
  for (const auto& [name, f] : families) y += FamilyLine(name, f, r);
  return y;
}

}  // namespace dlsim::fit
