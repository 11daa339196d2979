// `dlsim calibrate`'s fit (see the header): constants, sensitivities, the bounded Nelder-Mead fit of
// the step-time constants, the closed-form memory overhead, and the leave-one-run-out refits.
#include "dlsim/validate/calibrate.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/core/parallel_for.h"
#include "dlsim/core/strings.h"
#include "dlsim/train/simulate.h"

namespace dlsim::validate {
namespace {

using A = cost::ArchTrainingCalibration;

enum Kind : size_t { kGemm, kFp8Gemm, kAttention, kElementwise, kHost, kMemory };

// Fraction of a constant's value (or at least this many of its unit, for the host time) by which the
// sensitivity probe moves it, and the smallest sensitivity that counts as informed by the runs.
constexpr double kProbe = 0.10;
constexpr double kHostProbeUs = 100;
constexpr double kInformed = 0.002;

std::optional<double> A::*ArchField(Kind k) {
  switch (k) {
    case kGemm:
      return &A::gemm_max_efficiency;
    case kFp8Gemm:
      return &A::fp8_gemm_max_efficiency;
    case kAttention:
      return &A::attention_efficiency;
    case kElementwise:
      return &A::elementwise_efficiency;
    default:
      return nullptr;
  }
}

// The host time every run's stack measured (training.stack's framework.layer_host_us), when they share one.
std::optional<double> CommonStackHost(const std::vector<CalibrationRun>& runs) {
  std::optional<double> host = runs.empty() ? std::nullopt : runs[0].options.training.stack_layer_host_us;
  for (const CalibrationRun& r : runs)
    if (r.options.training.stack_layer_host_us != host) return std::nullopt;
  return host;
}

// The value the first run is priced with for constant k on `gpu`: the training calibration's, else its
// stack's measured rate (stacks.yaml `calibration:`, laid under the training calibration), else the
// kernel-level constant (the GPU's own measured GEMM curve where it has one).
double ShippedValue(Kind k, const catalog::Catalogs& c, const hw::GpuSpec& gpu, const CalibrationRun& run) {
  if (k == kHost) return c.training.layer_host_time.value_or(Duration::Zero()).ToMicros();
  if (k == kMemory) return c.training.memory_overhead.value_or(GiB(2)).ToGiB();
  if (auto v = c.training.ArchValue(gpu.architecture, ArchField(k))) return *v;
  for (const A& a : run.options.training.stack_calibration)
    if (a.architecture == gpu.architecture && (a.*ArchField(k)).has_value()) return *(a.*ArchField(k));
  // What the GPU is priced with otherwise: for an architecture compute.yaml does not calibrate, the fallback
  // over the other architectures with the shipped training constants applied (TrainingCalibration::Apply).
  const cost::ArchCalibration a = cost::ResolveArchCalibration(gpu, c.training.Apply(c.compute, &gpu));
  switch (k) {
    case kGemm:
      return a.Gemm(hw::DType::kBf16).max_efficiency;
    case kFp8Gemm:
      return a.Gemm(hw::DType::kFp8).max_efficiency;
    case kAttention:
      return a.attention.fwd_efficiency;
    default:
      return a.memory.efficiency;
  }
}

double Clamp(Kind k, double v) { return std::clamp(v, StackConstants()[k].lo, StackConstants()[k].hi); }

// The calibration that sets constants `kinds` to `values` (clamped to their bounds) on `arch`.
cost::TrainingCalibration CalibrationOf(const std::vector<Kind>& kinds, const std::vector<double>& values,
                                        const std::string& arch) {
  cost::TrainingCalibration c;
  c.source = "dlsim calibrate";
  A a;
  a.architecture = arch;
  for (size_t i = 0; i < kinds.size(); ++i) {
    const double v = Clamp(kinds[i], values[i]);
    if (kinds[i] == kHost) {
      c.layer_host_time = Seconds(v * 1e-6);
    } else if (kinds[i] == kMemory) {
      c.memory_overhead = GiB(v);
    } else {
      a.*ArchField(kinds[i]) = v;
    }
  }
  if (a.gemm_max_efficiency || a.fp8_gemm_max_efficiency || a.attention_efficiency ||
      a.elementwise_efficiency)
    c.archs.push_back(a);
  return c;
}

// Step times and peak memory (GiB) of runs `idx` under one calibration.
struct Predictions {
  std::vector<double> step_s, memory_gib;
  bool ok = true;
  std::string error;  // the first run that failed, when !ok
};

class Predictor {
 public:
  Predictor(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& base, std::string arch)
      : runs_(runs), base_(base), arch_(std::move(arch)) {}

  Predictions Run(const std::vector<Kind>& kinds, const std::vector<double>& values,
                  const std::vector<size_t>& idx, bool need_feasible) const {
    catalog::Catalogs cal = base_;
    cal.training = cost::Overlay(base_.training, CalibrationOf(kinds, values, arch_));
    Predictions p;
    for (size_t i : idx) {
      Result<train::StepResult> r = train::Simulate(runs_[i].options, cal, nullptr);
      if (!r.ok() || (need_feasible && !r->feasible) || !(r->step_time_s > 0)) {
        p.ok = false;
        p.error = runs_[i].label + ": " + (!r.ok() ? r.error().message : r->reason);
        return p;
      }
      p.step_s.push_back(r->step_time_s);
      p.memory_gib.push_back(r->peak_memory.ToGiB());
    }
    return p;
  }
  const std::vector<CalibrationRun>& runs() const { return runs_; }
  const std::string& arch() const { return arch_; }

 private:
  const std::vector<CalibrationRun>& runs_;
  const catalog::Catalogs& base_;
  std::string arch_;
};

std::vector<size_t> AllBut(size_t n, size_t skip) {
  std::vector<size_t> idx;
  for (size_t i = 0; i < n; ++i)
    if (i != skip) idx.push_back(i);
  return idx;
}

double MeanSquaredLogRatio(const std::vector<double>& pred, const std::vector<CalibrationRun>& runs,
                           const std::vector<size_t>& idx) {
  double sum = 0;
  for (size_t k = 0; k < idx.size(); ++k) {
    const double r = std::log(pred[k] / runs[idx[k]].step_time_s);
    sum += r * r;
  }
  return sum / static_cast<double>(idx.size());
}

// Fits `kinds` (from `start`) on runs `idx`; the other constants stay as in the base catalogs.
std::vector<double> FitStep(const Predictor& p, const std::vector<Kind>& kinds,
                            const std::vector<double>& start, const std::vector<size_t>& idx,
                            int* evaluations) {
  if (kinds.empty()) return start;
  auto objective = [&](const std::vector<double>& x) {
    const Predictions pr = p.Run(kinds, x, idx, true);
    *evaluations += static_cast<int>(idx.size());
    return pr.ok ? MeanSquaredLogRatio(pr.step_s, p.runs(), idx) : 1e9;
  };
  std::vector<double> step;
  for (Kind k : kinds) step.push_back(k == kHost ? 2 * kHostProbeUs : 0.05);
  std::vector<double> x = start;
  for (const double scale : {1.0, 0.25}) {
    std::vector<double> s = step;
    for (double& v : s) v *= scale;
    x = MinimizeNelderMead(objective, x, s, {.iterations = 60, .f_tolerance = 1e-7}).x;
  }
  for (size_t i = 0; i < kinds.size(); ++i) x[i] = Clamp(kinds[i], x[i]);
  return x;
}

// The architecture of every run's GPU, or an error when they differ or a GPU is unknown.
Result<std::string> RunsArchitecture(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& c) {
  std::string arch;
  for (const CalibrationRun& r : runs) {
    DLSIM_ASSIGN_OR_RETURN(const hw::GpuSpec* gpu, c.hardware.FindGpu(r.options.hardware.gpu));
    if (!arch.empty() && gpu->architecture != arch)
      return Error::InvalidArgument(r.label + ": its GPU is " + gpu->architecture + ", the runs before are " +
                                    arch + "; calibrate one GPU architecture at a time (one file each)");
    arch = gpu->architecture;
  }
  return arch;
}

// The step-time constants the runs can inform: the GEMM constant of each precision they use, attention,
// elementwise, host.
std::vector<Kind> StepCandidates(const std::vector<CalibrationRun>& runs) {
  const bool fp8 = std::any_of(runs.begin(), runs.end(), [](const CalibrationRun& r) {
    return r.options.training.precision == hw::DType::kFp8;
  });
  const bool other = std::any_of(runs.begin(), runs.end(), [](const CalibrationRun& r) {
    return r.options.training.precision != hw::DType::kFp8;
  });
  std::vector<Kind> out;
  if (other) out.push_back(kGemm);
  if (fp8) out.push_back(kFp8Gemm);
  for (Kind k : {kAttention, kElementwise, kHost}) out.push_back(k);
  return out;
}

// Each candidate with its start value and sensitivity (mean |relative change| of the step times).
std::vector<ConstantFit> Sensitivities(const Predictor& p, const std::vector<Kind>& cands,
                                       const std::vector<double>& start, const std::vector<double>& base_s,
                                       int* evaluations) {
  std::vector<size_t> all(p.runs().size());
  std::iota(all.begin(), all.end(), 0);
  std::vector<ConstantFit> out;
  for (size_t c = 0; c < cands.size(); ++c) {
    // Up by kProbe, or down where that would leave the bounds (a constant at its upper bound).
    const double up = start[c] * (1 + kProbe);
    const double moved = cands[c] == kHost ? start[c] + std::max(kProbe * start[c], kHostProbeUs)
                         : up <= StackConstants()[cands[c]].hi ? up
                                                               : start[c] * (1 - kProbe);
    const Predictions pr = p.Run({cands[c]}, {moved}, all, false);
    *evaluations += static_cast<int>(all.size());
    double sum = 0;
    for (size_t i = 0; pr.ok && i < all.size(); ++i) sum += std::fabs(pr.step_s[i] / base_s[i] - 1);
    out.push_back(
        {StackConstants()[cands[c]].name, start[c], start[c], sum / static_cast<double>(all.size())});
  }
  return out;
}

Result<Kind> KindOf(const std::string& name) {
  const auto& specs = StackConstants();
  for (size_t k = 0; k < specs.size(); ++k)
    if (name == specs[k].name) return static_cast<Kind>(k);
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return Error::InvalidArgument(UnknownNameMessage("constant", name, names));
}

// Whether to fit the memory overhead: named, or (none named) two or more runs give peak memory.
Result<bool> WantMemory(const CalibrateOptions& o, size_t memory_runs) {
  const bool named = std::count(o.constants.begin(), o.constants.end(), "memory") > 0;
  if (o.constants == std::vector<std::string>{"none"}) return false;
  if (named && memory_runs < 2)
    return Error::InvalidArgument(fmt::format(
        "the memory constant needs at least 2 runs with peak_memory_gib; {} have it", memory_runs));
  return named || (o.constants.empty() && memory_runs >= 2);
}

// The step-time constants to fit (the memory overhead is WantMemory's).
Result<std::vector<Kind>> Choose(const CalibrateOptions& o, const std::vector<ConstantFit>& cands,
                                 const std::vector<Kind>& cand_kinds, size_t runs) {
  std::vector<Kind> step;
  const size_t most = runs / 2;
  if (o.constants.empty()) {
    std::vector<size_t> order(cands.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return cands[a].sensitivity > cands[b].sensitivity; });
    for (size_t i : order)
      if (step.size() < most && cands[i].sensitivity >= kInformed) step.push_back(cand_kinds[i]);
    return step;
  }
  if (o.constants == std::vector<std::string>{"none"}) return step;  // score only
  for (const std::string& name : o.constants) {
    DLSIM_ASSIGN_OR_RETURN(Kind k, KindOf(name));
    if (std::count(o.constants.begin(), o.constants.end(), name) > 1)
      return Error::InvalidArgument("constant '" + name + "' is named twice");
    if (k != kMemory) step.push_back(k);
  }
  if (step.size() > most)
    return Error::InvalidArgument(fmt::format(
        "{} runs support at most {} step-time constants (one per two runs); {} were asked for: {}", runs,
        most, step.size(), Join(o.constants, ", ")));
  return step;
}

// The memory overhead that minimises the squared relative error of the runs that give memory (each
// residual weighted by 1 / measured^2), and per run the same fit without it (leave one out). Fills the
// memory columns of `out`. With !fit the shipped overhead is kept (the columns only score it).
double FitMemory(const std::vector<CalibrationRun>& runs, const std::vector<double>& predicted_gib,
                 double shipped_gib, bool fit, CalibrateResult& out) {
  std::vector<size_t> idx;
  double num = 0, den = 0;  // sum w (measured - model), sum w
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].peak_memory_gib) continue;
    idx.push_back(i);
    const double m = *runs[i].peak_memory_gib, w = 1 / (m * m);
    num += w * (m - (predicted_gib[i] - shipped_gib));
    den += w;
  }
  const double fitted = fit ? Clamp(kMemory, num / den) : shipped_gib;
  std::vector<double> meas, before, after, held;
  for (size_t i : idx) {
    const double model = predicted_gib[i] - shipped_gib, m = *runs[i].peak_memory_gib, w = 1 / (m * m);
    const double loo = fit && idx.size() > 1 ? Clamp(kMemory, (num - w * (m - model)) / (den - w)) : fitted;
    RunFit& r = out.runs[i];
    r.memory_gib = m;
    r.memory_before_gib = predicted_gib[i];
    r.memory_fitted_gib = model + fitted;
    r.memory_held_out_gib = model + loo;
    meas.push_back(m);
    before.push_back(*r.memory_before_gib);
    after.push_back(*r.memory_fitted_gib);
    held.push_back(*r.memory_held_out_gib);
  }
  out.memory_mape_before = Mape(before, meas);
  out.memory_mape_fitted = Mape(after, meas);
  out.memory_mape_held_out = Mape(held, meas);
  if (fit)
    out.fitted.push_back(
        {"memory", shipped_gib, fitted, 0, fitted <= 0 || fitted >= StackConstants()[kMemory].hi});
  return fitted;
}

// Leave-one-run-out: each run predicted by a fit of `kinds` on the others, from `start`.
std::vector<double> HeldOut(const Predictor& p, const std::vector<Kind>& kinds,
                            const std::vector<double>& start, int threads, int* evaluations) {
  const size_t n = p.runs().size();
  std::vector<double> held(n, 0);
  std::vector<int> evals(n, 0);
  ParallelFor(n, threads, [&](size_t i) {
    const std::vector<double> x = FitStep(p, kinds, start, AllBut(n, i), &evals[i]);
    const Predictions pr = p.Run(kinds, x, {i}, false);
    held[i] = pr.ok ? pr.step_s[0] : 0;
    ++evals[i];
  });
  *evaluations += std::accumulate(evals.begin(), evals.end(), 0);
  return held;
}

// The 10th-90th percentile (linear interpolation) of measured / held-out prediction, widened to include 1.
cost::CalibratedInterval HeldOutInterval(const std::vector<double>& meas, const std::vector<double>& held,
                                         const std::string& arch) {
  std::vector<double> ratio;
  for (size_t i = 0; i < meas.size(); ++i)
    if (held[i] > 0) ratio.push_back(meas[i] / held[i]);
  std::sort(ratio.begin(), ratio.end());
  auto quantile = [&](double q) {
    if (ratio.empty()) return 1.0;
    const double pos = q * static_cast<double>(ratio.size() - 1);
    const size_t lo = static_cast<size_t>(pos);
    const size_t hi = std::min(lo + 1, ratio.size() - 1);
    return ratio[lo] + (pos - static_cast<double>(lo)) * (ratio[hi] - ratio[lo]);
  };
  return {arch, std::min(1.0, quantile(0.1)), std::max(1.0, quantile(0.9)), static_cast<int>(ratio.size())};
}

std::vector<double> Measured(const std::vector<CalibrationRun>& runs) {
  std::vector<double> m;
  for (const CalibrationRun& r : runs) m.push_back(r.step_time_s);
  return m;
}

}  // namespace

const std::vector<StackConstant>& StackConstants() {
  static const std::vector<StackConstant> kConstants = {
      {"gemm", 0.05, 1.0, "fraction", "bf16/fp16 GEMM asymptote (fraction of tensor-core peak)"},
      {"fp8_gemm", 0.05, 1.0, "fraction", "FP8 GEMM asymptote (fraction of FP8 tensor-core peak)"},
      {"attention", 0.05, 1.0, "fraction", "attention forward efficiency (backward keeps its ratio)"},
      {"elementwise", 0.05, 1.0, "fraction", "HBM bandwidth fraction of elementwise kernels"},
      {"host", 0.0, 5000.0, "us", "host time to issue one layer's forward kernels (backward 2x)"},
      {"memory", 0.0, 64.0, "GiB", "framework memory per GPU besides the model's tensors"},
  };
  return kConstants;
}

}  // namespace dlsim::validate

namespace dlsim::validate {
namespace {

// The step-time part of Calibrate on the catalogs `base` (memory overhead already applied).
Status FitStepConstants(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& base,
                        const CalibrateOptions& o, CalibrateResult& out) {
  const Predictor p(runs, base, out.architecture);
  std::vector<size_t> all(runs.size());
  std::iota(all.begin(), all.end(), 0);
  const Predictions before = p.Run({}, {}, all, true);
  if (!before.ok)
    return Error::InvalidArgument(before.error + " (dlsim cannot price this run as given: fix or drop it)");
  const std::vector<Kind> cand_kinds = StepCandidates(runs);
  // The start of each constant: what the runs are priced with (a stack's measured host time when they share
  // one).
  const std::optional<double> stack_host = CommonStackHost(runs);
  // The runs' GPU (one architecture, checked by RunsArchitecture; the first run's GPU where they differ).
  const hw::GpuSpec& gpu = **base.hardware.FindGpu(runs.front().options.hardware.gpu);
  auto start_of = [&](Kind k) {
    return k == kHost && stack_host ? *stack_host : ShippedValue(k, base, gpu, runs.front());
  };
  std::vector<double> cand_start;
  for (Kind k : cand_kinds) cand_start.push_back(start_of(k));
  out.candidates = Sensitivities(p, cand_kinds, cand_start, before.step_s, &out.evaluations);
  DLSIM_ASSIGN_OR_RETURN(const std::vector<Kind> chosen, Choose(o, out.candidates, cand_kinds, runs.size()));
  std::vector<double> start;
  for (Kind k : chosen) start.push_back(start_of(k));
  const std::vector<double> x = FitStep(p, chosen, start, all, &out.evaluations);
  const Predictions fitted = p.Run(chosen, x, all, true);
  const std::vector<double> held = HeldOut(p, chosen, start, o.threads, &out.evaluations);
  for (size_t i = 0; i < runs.size(); ++i) {
    out.runs[i].before_s = before.step_s[i];
    out.runs[i].fitted_s = fitted.ok ? fitted.step_s[i] : 0;
    out.runs[i].held_out_s = held[i];
  }
  const std::vector<double> meas = Measured(runs);
  out.mape_before = Mape(before.step_s, meas);
  out.mape_fitted = fitted.ok ? Mape(fitted.step_s, meas) : 0;
  out.mape_held_out = Mape(held, meas);
  for (size_t k = 0; k < chosen.size(); ++k) {
    const StackConstant& s = StackConstants()[chosen[k]];
    const ConstantFit& c =
        out.candidates[std::find(cand_kinds.begin(), cand_kinds.end(), chosen[k]) - cand_kinds.begin()];
    out.fitted.push_back({s.name, start[k], x[k], c.sensitivity, x[k] <= s.lo || x[k] >= s.hi});
  }
  const cost::TrainingCalibration step = CalibrationOf(chosen, x, out.architecture);
  out.calibration.archs = step.archs;
  out.calibration.layer_host_time = step.layer_host_time;
  if (!chosen.empty()) out.calibration.interval = HeldOutInterval(meas, held, out.architecture);
  return Status::Ok();
}

}  // namespace

Result<CalibrateResult> Calibrate(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& catalogs,
                                  const CalibrateOptions& options) {
  if (runs.size() < 2)
    return Error::InvalidArgument(
        fmt::format("calibration needs at least 2 runs (one constant per two runs); found {}", runs.size()));
  CalibrateResult out;
  DLSIM_ASSIGN_OR_RETURN(out.architecture, RunsArchitecture(runs, catalogs));
  out.calibration.source = "dlsim calibrate";
  for (const CalibrationRun& r : runs) {
    RunFit f;
    f.label = r.label;
    f.measured_s = r.step_time_s;
    out.runs.push_back(f);
  }
  const size_t memory_runs = static_cast<size_t>(std::count_if(
      runs.begin(), runs.end(), [](const CalibrationRun& r) { return r.peak_memory_gib.has_value(); }));
  DLSIM_ASSIGN_OR_RETURN(const bool memory, WantMemory(options, memory_runs));
  catalog::Catalogs base = catalogs;
  if (memory_runs > 0) {
    const Predictor shipped(runs, catalogs, out.architecture);
    std::vector<size_t> all(runs.size());
    std::iota(all.begin(), all.end(), 0);
    const Predictions p = shipped.Run({}, {}, all, false);
    if (!p.ok) return Error::InvalidArgument(p.error);
    out.evaluations += static_cast<int>(runs.size());
    const double o = FitMemory(runs, p.memory_gib, catalogs.training.memory_overhead.value_or(GiB(2)).ToGiB(),
                               memory, out);
    if (memory) out.calibration.memory_overhead = base.training.memory_overhead = GiB(o);
  }
  DLSIM_RETURN_IF_ERROR(FitStepConstants(runs, base, options, out));
  return out;
}

}  // namespace dlsim::validate

namespace dlsim::validate {
namespace {

// The MAPE (%) of `runs` under the catalogs with `cal` laid over their training constants.
Result<double> MapeUnder(const std::vector<CalibrationRun>& runs, const catalog::Catalogs& catalogs,
                         const cost::TrainingCalibration& cal) {
  catalog::Catalogs c = catalogs;
  c.training = cost::Overlay(catalogs.training, cal);
  std::vector<double> pred, meas;
  for (const CalibrationRun& r : runs) {
    DLSIM_ASSIGN_OR_RETURN(train::StepResult s, train::Simulate(r.options, c, nullptr));
    pred.push_back(s.step_time_s);
    meas.push_back(r.step_time_s);
  }
  return Mape(pred, meas);
}

}  // namespace

Result<SetCalibration> CalibrateOnRows(const ValidationSet& set, const catalog::Catalogs& catalogs, size_t n,
                                       int threads) {
  std::vector<CalibrationRun> runs;
  for (const ValidationRow& row : set.rows)
    if (row.options && row.feasible && row.measured > 0 && row.predicted > 0)
      runs.push_back({row.label, *row.options, row.measured, std::nullopt});
  if (runs.size() < n + 2)
    return Error::InvalidArgument(fmt::format("{}: {} usable rows; calibrating on {} needs at least {}",
                                              set.name, runs.size(), n, n + 2));
  std::vector<CalibrationRun> fit, rest;
  for (size_t i = 0, k = 0; i < runs.size(); ++i) {
    const bool pick = k < n && i == k * runs.size() / n;  // n rows evenly spaced
    (pick ? fit : rest).push_back(runs[i]);
    k += pick;
  }
  SetCalibration out;
  out.set = set.name;
  out.rows = runs.size();
  DLSIM_ASSIGN_OR_RETURN(out.uncalibrated_mape, MapeUnder(runs, catalogs, {}));
  DLSIM_ASSIGN_OR_RETURN(CalibrateResult on_n, Calibrate(fit, catalogs, {.threads = threads}));
  for (const ConstantFit& f : on_n.fitted) out.constants.push_back(f.name);
  DLSIM_ASSIGN_OR_RETURN(out.calibrated_mape, MapeUnder(rest, catalogs, on_n.calibration));
  DLSIM_ASSIGN_OR_RETURN(CalibrateResult on_all, Calibrate(runs, catalogs, {.threads = threads}));
  out.in_sample_mape = on_all.mape_fitted;
  return out;
}

}  // namespace dlsim::validate
