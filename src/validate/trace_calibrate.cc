#include "dlsim/validate/trace_calibrate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <memory>

#include "dlsim/cost/compute_model.h"
#include "dlsim/validate/calibrate.h"

namespace dlsim::validate {
namespace {

using cost::ArchTrainingCalibration;

struct Call {
  cost::KernelOp op;
  double measured_ms = 0;
  size_t trace = 0;  // index of the profiled step it came from
};

// A family of traced calls and the one constant that prices them.
struct Family {
  std::string constant;
  std::vector<Call> calls;
  double lo = 0, hi = 0, start = 0;  // the constant's bounds (StackConstants) and shipped value
  std::function<void(ArchTrainingCalibration&, double)> set;
};

Result<std::unique_ptr<cost::ComputeModel>> ModelWith(const catalog::Catalogs& c, const hw::GpuSpec& gpu,
                                                      const cost::TrainingCalibration& over) {
  const cost::TrainingCalibration cal = cost::Overlay(c.training, over);
  cost::ComputeModelRegistry reg("compute-model");
  cost::RegisterComputeModels(reg);
  return reg.Create("roofline", gpu, cal.Apply(c.compute, &gpu));
}

cost::TrainingCalibration WithValue(const Family& f, const std::string& arch, double v) {
  cost::TrainingCalibration over;
  over.source = "trace fit";
  ArchTrainingCalibration a;
  a.architecture = arch;
  f.set(a, v);
  over.archs.push_back(a);
  return over;
}

struct Priced {
  double total_ms = 0, mape = 0;
  double log_ratio = 0;  // mean over the traces of log(dlsim's total / the measured total)
};
Priced Price(const cost::ComputeModel& m, const std::vector<Call>& calls) {
  Priced p;
  std::map<size_t, std::pair<double, double>> per_trace;  // trace -> (priced, measured) ms
  for (const Call& c : calls) {
    const double ms = cost::PriceKernelOp(m, c.op).ToSeconds() * 1e3;
    p.total_ms += ms;
    p.mape += std::abs(ms / c.measured_ms - 1);
    per_trace[c.trace].first += ms;
    per_trace[c.trace].second += c.measured_ms;
  }
  p.mape *= 100.0 / std::max<size_t>(1, calls.size());
  for (const auto& [t, ms] : per_trace) p.log_ratio += std::log(ms.first / ms.second);
  p.log_ratio /= std::max<size_t>(1, per_trace.size());
  return p;
}

// The constant in [lo, hi] at which dlsim's time for the family's calls matches the measured time, each
// trace counted once: the geometric mean over the traces of (dlsim's total / measured total) is 1, so the
// longest step does not outvote the others (time falls as efficiency rises). Bisection in log space; a
// bound when no value in the range matches.
Result<TraceFamilyFit> FitFamily(const Family& f, const catalog::Catalogs& c, const hw::GpuSpec& gpu) {
  TraceFamilyFit fit{.constant = f.constant, .calls = static_cast<int>(f.calls.size()), .start = f.start};
  for (const Call& call : f.calls) fit.measured_ms += call.measured_ms;
  auto total = [&](double v) -> Result<Priced> {
    DLSIM_ASSIGN_OR_RETURN(auto m, ModelWith(c, gpu, WithValue(f, gpu.architecture, v)));
    return Price(*m, f.calls);
  };
  double lo = f.lo, hi = f.hi;
  for (int i = 0; i < 40; ++i) {
    const double mid = std::sqrt(lo * hi);
    DLSIM_ASSIGN_OR_RETURN(Priced p, total(mid));
    (p.log_ratio > 0 ? lo : hi) = mid;
  }
  fit.value = std::sqrt(lo * hi);
  fit.at_bound = fit.value < f.lo * 1.01 || fit.value > f.hi * 0.99;
  DLSIM_ASSIGN_OR_RETURN(Priced shipped, total(f.start));
  DLSIM_ASSIGN_OR_RETURN(Priced fitted, total(fit.value));
  fit.shipped_ms = shipped.total_ms;
  fit.fitted_ms = fitted.total_ms;
  fit.mape_shipped = shipped.mape;
  fit.mape_fitted = fitted.mape;
  return fit;
}

// The bounds of a StackConstants() entry.
const StackConstant& BoundsOf(std::string_view name) {
  return *std::find_if(StackConstants().begin(), StackConstants().end(),
                       [&](const StackConstant& c) { return name == c.name; });
}

// The constant that prices a traced call: "gemm", "fp8_gemm", "elementwise", "attention <family>" for a
// measured attention family, else "attention"; "" for calls no constant is fitted on (fp32 GEMMs).
std::string FamilyKey(const cost::KernelOp& k, const cost::ArchCalibration& arch) {
  switch (k.kind) {
    case cost::KernelOpKind::kGemm:
      return k.dtype == hw::DType::kFp8 ? "fp8_gemm" : k.dtype == hw::DType::kFp32 ? "" : "gemm";
    case cost::KernelOpKind::kElementwise:
      return "elementwise";
    default:
      return arch.attention_backends.count(k.attention.backend) ? "attention " + k.backend : "attention";
  }
}

// One trace's GPU time by category and its host timing; its priced calls join their families in `by`.
TraceSummary Summarize(const ProfiledStep& s, size_t index, const cost::ArchCalibration& arch,
                       std::map<std::string, Family>& by) {
  TraceSummary t;
  t.file = s.file;
  t.category_ms = GpuMsByCategory(s);
  for (const TracedOp& op : s.ops) {
    const auto k = ToKernelOp(op, s.causal.value_or(true));
    const std::string key = k && op.gpu_us > 0 ? FamilyKey(*k, arch) : "";
    if (key.empty()) continue;
    by[key].calls.push_back({*k, op.gpu_us / 1e3, index});
    t.priced_ms += op.gpu_us / 1e3;
  }
  t.unlinked_ms = s.unlinked_gpu_us / 1e3;
  t.gpu_busy_ms = s.gpu_busy_us / 1e3;
  t.gpu_span_ms = s.gpu_span_us / 1e3;
  t.host = MeasureHost(s);
  return t;
}

// Each family's constant: its bounds, shipped value and setter.
std::vector<Family> Families(std::map<std::string, Family> by, const cost::ArchCalibration& arch) {
  std::vector<Family> out;
  for (auto& [key, f] : by) {
    f.constant = key;
    const StackConstant& bounds = BoundsOf(key.rfind("attention", 0) == 0 ? "attention" : key);
    f.lo = bounds.lo;
    f.hi = bounds.hi;
    if (key == "gemm") {
      f.start = arch.Gemm(hw::DType::kBf16).max_efficiency;
      f.set = [](ArchTrainingCalibration& a, double v) { a.gemm_max_efficiency = v; };
    } else if (key == "fp8_gemm") {
      f.start = arch.Gemm(hw::DType::kFp8).max_efficiency;
      f.set = [](ArchTrainingCalibration& a, double v) { a.fp8_gemm_max_efficiency = v; };
    } else if (key == "elementwise") {
      f.start = arch.memory.efficiency;
      f.set = [](ArchTrainingCalibration& a, double v) { a.elementwise_efficiency = v; };
    } else if (key == "attention") {
      f.start = arch.attention.fwd_efficiency;
      f.set = [](ArchTrainingCalibration& a, double v) { a.attention_efficiency = v; };
    } else {
      const cost::AttentionBackend b = f.calls.front().op.attention.backend;
      f.start = arch.attention_backends.at(b).fwd_efficiency;
      f.set = [b](ArchTrainingCalibration& a, double v) { a.attention_backend_efficiency[b] = v; };
    }
    out.push_back(std::move(f));
  }
  return out;
}

// Host time per layer: forward + backward issue over the layer's passes (3, or 4 when the forward is
// issued again to recompute), the mean over the traces that measured both passes.
std::optional<double> HostPerLayer(const std::vector<TraceSummary>& traces) {
  double sum = 0;
  int n = 0;
  for (const TraceSummary& t : traces) {
    if (!t.host.fwd_layer_us || !t.host.bwd_layer_us) continue;
    sum += (*t.host.fwd_layer_us + *t.host.bwd_layer_us) / (t.host.recompute ? 4.0 : 3.0);
    ++n;
  }
  if (n == 0) return std::nullopt;
  return sum / n;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  return s;
}

}  // namespace

Result<const hw::GpuSpec*> TraceGpu(const std::vector<ProfiledStep>& steps, const hw::Catalog& hardware,
                                    const std::string& gpu_name) {
  if (steps.empty()) return Error::InvalidArgument("no trace given");
  if (!gpu_name.empty()) return hardware.FindGpu(gpu_name);
  const std::string device = steps.front().device;
  for (const ProfiledStep& s : steps)
    if (s.device != device)
      return Error::InvalidArgument(fmt::format("{} ran on '{}', {} on '{}': calibrate one GPU at a time",
                                                s.file, s.device, steps.front().file, device));
  std::string name = Lower(device);
  if (name.rfind("nvidia ", 0) == 0) name = name.substr(7);
  const std::string first = name.substr(0, name.find(' '));
  auto gpu = hardware.FindGpu(first);
  if (first.empty() || !gpu.ok())
    return Error::InvalidArgument(fmt::format(
        "{}: its device '{}' is not in the GPU catalog; name it with --gpu", steps.front().file, device));
  return gpu;
}

Result<TraceCalibrateResult> CalibrateFromTraces(const std::vector<ProfiledStep>& steps,
                                                 const catalog::Catalogs& catalogs, const hw::GpuSpec& gpu) {
  if (steps.empty()) return Error::InvalidArgument("no trace given");
  TraceCalibrateResult r;
  r.gpu = gpu.name;
  r.architecture = gpu.architecture;
  const cost::ComputeCalibration applied = catalogs.training.Apply(catalogs.compute, &gpu);
  const cost::ArchCalibration arch = cost::ResolveArchCalibration(gpu, applied);
  std::map<std::string, Family> by;
  for (size_t i = 0; i < steps.size(); ++i) r.traces.push_back(Summarize(steps[i], i, arch, by));
  r.calibration.source = "dlsim calibrate --trace";
  ArchTrainingCalibration fitted;
  fitted.architecture = gpu.architecture;
  for (const Family& f : Families(std::move(by), arch)) {
    DLSIM_ASSIGN_OR_RETURN(TraceFamilyFit fit, FitFamily(f, catalogs, gpu));
    f.set(fitted, fit.value);
    r.fits.push_back(fit);
  }
  if (r.fits.empty())
    return Error::InvalidArgument(steps.front().file +
                                  ": no GEMM, attention or elementwise call with shapes dlsim "
                                  "can price; was it profiled with record_shapes=True?");
  r.calibration.archs.push_back(fitted);
  r.host_shipped_us = catalogs.training.layer_host_time ? catalogs.training.layer_host_time->ToMicros() : 0;
  r.host_us = HostPerLayer(r.traces);
  if (r.host_us) {
    const StackConstant& bounds = BoundsOf("host");
    r.host_us = std::clamp(*r.host_us, bounds.lo, bounds.hi);
    r.calibration.layer_host_time = Seconds(*r.host_us * 1e-6);
    r.calibration.layer_host_source = r.calibration.source;
  }
  return r;
}

}  // namespace dlsim::validate
