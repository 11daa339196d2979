// The end-to-end training fit (see the header): objective over a row selection, the staged
// Nelder-Mead, and the mapping between parameter vectors and training calibrations.
#include "dlsim/validate/training_fit.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace dlsim::validate {
namespace {

// MAPE (%) over the selected rows of `s` and their count (every row when `flags` is null).
std::pair<double, size_t> SelectedMape(const ValidationSet& s, const std::vector<bool>* flags) {
  if (flags == nullptr) return {s.Mape(), s.rows.size()};
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < s.rows.size() && i < flags->size(); ++i) {
    if (!(*flags)[i]) continue;
    sum += std::fabs(s.rows[i].ErrorPct());
    ++n;
  }
  return {n > 0 ? sum / static_cast<double>(n) : 0.0, n};
}

// Whether the selection has a row of set `name` (a set absent from it is seen whole).
bool Seen(const RowSelection& selection, const std::string& name) {
  const auto it = selection.find(name);
  return it == selection.end() || std::find(it->second.begin(), it->second.end(), true) != it->second.end();
}

// The parameters that the selected rows inform, in order.
std::vector<size_t> FreeParams(const FitProblem& p, size_t n, const RowSelection& selection) {
  std::vector<size_t> free;
  for (size_t i = 0; i < n; ++i) {
    const bool all = i >= p.param_sets.size() || p.param_sets[i].empty();
    bool informed = all;
    for (size_t j = 0; !all && j < p.param_sets[i].size(); ++j)
      informed = informed || Seen(selection, p.param_sets[i][j]);
    if (informed) free.push_back(i);
  }
  return free;
}

// One Nelder-Mead stage over the entries `free` of x (the others stay as in x).
NelderMeadResult MinimizeOver(const ObjectiveFn& f, const std::vector<double>& x,
                              const std::vector<double>& steps, const std::vector<size_t>& free,
                              const NelderMeadOptions& options) {
  auto expand = [&x, &free](const std::vector<double>& y) {
    std::vector<double> full = x;
    for (size_t k = 0; k < free.size(); ++k) full[free[k]] = y[k];
    return full;
  };
  std::vector<double> y0, step;
  for (size_t i : free) {
    y0.push_back(x[i]);
    step.push_back(steps[i]);
  }
  if (free.empty()) return {x, f(x), 0, 1, true};
  NelderMeadResult r =
      MinimizeNelderMead([&](const std::vector<double>& y) { return f(expand(y)); }, y0, step, options);
  r.x = expand(r.x);
  return r;
}

// The first stage from x or, when the grid parameter is free, from the grid value whose start scores best
// (the scan's evaluations are counted with the stage's).
NelderMeadResult FirstStage(const FitProblem& p, const ObjectiveFn& f, const std::vector<double>& x,
                            const std::vector<size_t>& free, const NelderMeadOptions& options) {
  const bool grid = p.grid_param >= 0 && !p.grid_values.empty() &&
                    std::find(free.begin(), free.end(), static_cast<size_t>(p.grid_param)) != free.end();
  if (!grid) return MinimizeOver(f, x, p.stage_steps[0], free, options);
  std::vector<double> start = x, best = x;
  double best_value = 0;
  for (size_t k = 0; k < p.grid_values.size(); ++k) {
    start[p.grid_param] = p.grid_values[k];
    const double v = f(start);
    if (k == 0 || v < best_value) {
      best_value = v;
      best = start;
    }
  }
  NelderMeadResult r = MinimizeOver(f, best, p.stage_steps[0], free, options);
  r.evaluations += static_cast<int>(p.grid_values.size());
  return r;
}

}  // namespace

double FitObjective(const std::vector<ValidationSet>& sets, const std::vector<std::string>& fit_sets,
                    const RowSelection& selection, std::vector<std::pair<std::string, double>>* set_mape) {
  double sum = 0;
  int n = 0;
  if (set_mape != nullptr) set_mape->clear();
  for (const auto& s : sets) {
    if (std::find(fit_sets.begin(), fit_sets.end(), s.name) == fit_sets.end()) continue;
    const auto it = selection.find(s.name);
    const auto [mape, rows] = SelectedMape(s, it == selection.end() ? nullptr : &it->second);
    if (it != selection.end() && rows == 0) continue;
    const double r = mape / (s.bound_pct > 0 ? s.bound_pct : 10.0);
    sum += r * r;
    ++n;
    if (set_mape != nullptr) set_mape->emplace_back(s.name, mape);
  }
  return n ? sum / n : 1e9;
}

FitResult FitOnRows(const FitProblem& problem, std::vector<double> x0, const NelderMeadOptions& options,
                    const RowSelection& selection) {
  auto objective = [&](const std::vector<double>& x) {
    auto sets = problem.predict(x);
    if (!sets.ok()) return 1e9;
    return FitObjective(*sets, problem.fit_sets, selection, nullptr);
  };
  FitResult r;
  r.x = std::move(x0);
  const std::vector<size_t> free = FreeParams(problem, r.x.size(), selection);
  for (size_t i = 0; i < problem.uninformed.size() && i < r.x.size(); ++i)
    if (std::find(free.begin(), free.end(), i) == free.end()) r.x[i] = problem.uninformed[i];
  for (size_t k = 0; k < problem.stage_steps.size(); ++k) {
    NelderMeadResult stage = k == 0 ? FirstStage(problem, objective, r.x, free, options)
                                    : MinimizeOver(objective, r.x, problem.stage_steps[k], free, options);
    r.x = std::move(stage.x);
    r.evaluations += stage.evaluations;
    r.converged = r.converged && (options.f_tolerance < 0 || stage.converged);
  }
  auto sets = problem.predict(r.x);
  ++r.evaluations;
  if (!sets.ok()) {
    r.objective = 1e9;
    return r;
  }
  r.objective = FitObjective(*sets, problem.fit_sets, selection, &r.set_mape);
  r.sets = std::move(sets).value();
  return r;
}

const std::vector<std::string>& TrainingFitSets() {
  static const std::vector<std::string> kSets = {
      "megatron-2021-table1", "korthikanti-2022-full", "korthikanti-2022-seq-sel", "vtrain-single-node",
      "nemo-24.07-h100-fp8",  "mlperf-v3.1-gpt3-h100", "nemo-long-context-cp-h100"};
  return kSets;
}

FitProblem TrainingFitProblem(const catalog::Catalogs& catalogs) {
  FitProblem p;
  p.fit_sets = TrainingFitSets();
  p.predict = [catalogs](const std::vector<double>& x) {
    catalog::Catalogs cal = catalogs;
    cal.training = TrainingCalibrationFromParams(x);
    return RunValidationSets(cal, TrainingFitSets());
  };
  // A coarse stage, then a fine one restarted at its optimum.
  p.stage_steps = {{0.05, 0.05, 0.05, 200.0, 0.1}, {0.02, 0.02, 0.02, 50.0, 0.05}};
  // The host time has two basins (no floor, with the elementwise efficiency taking up the small layers'
  // time, and a floor near a millisecond): the coarse stage starts from the best of 0, 0.5, 1 and 1.5 ms.
  p.grid_param = 3;
  p.grid_values = {0.0, 500.0, 1000.0, 1500.0};
  // The A100 constants affect the A100 sets, the H100 ones the three H100 FP8 sets. The host time is informed
  // by vTrain alone: no other set has a layer shorter than a millisecond (without vTrain the objective is
  // flat in it: a refit from 0 wandered to -493 us), so a fit without vTrain runs with no host floor.
  const std::vector<std::string> a100 = {"megatron-2021-table1", "korthikanti-2022-full",
                                         "korthikanti-2022-seq-sel", "vtrain-single-node"};
  const std::vector<std::string> h100 = {"nemo-24.07-h100-fp8", "mlperf-v3.1-gpt3-h100",
                                         "nemo-long-context-cp-h100"};
  p.param_sets = {a100, h100, h100, {"vtrain-single-node"}, a100};
  p.uninformed = std::vector<double>(5, std::nan(""));
  return p;
}

cost::TrainingCalibration TrainingCalibrationFromParams(const std::vector<double>& x) {
  cost::TrainingCalibration c;
  auto frac = [](double v) -> std::optional<double> {
    if (std::isnan(v)) return std::nullopt;
    return std::clamp(v, 0.05, 1.0);
  };
  c.archs.push_back({"ampere", frac(x[0]), std::nullopt, std::nullopt, frac(x[4])});
  c.archs.push_back({"hopper", std::nullopt, frac(x[1]), frac(x[2]), std::nullopt});
  c.layer_host_time = Seconds(std::max(0.0, x[3]) * 1e-6);
  return c;
}

std::vector<double> TrainingParamsOf(const cost::TrainingCalibration& c,
                                     const cost::ComputeCalibration& kernel) {
  using A = cost::ArchTrainingCalibration;
  const std::vector<double> s = TrainingFitStart(kernel);
  return {c.ArchValue("ampere", &A::gemm_max_efficiency).value_or(s[0]),
          c.ArchValue("hopper", &A::fp8_gemm_max_efficiency).value_or(s[1]),
          c.ArchValue("hopper", &A::attention_efficiency).value_or(s[2]),
          c.layer_host_time.value_or(Duration::Zero()).ToSeconds() * 1e6,
          c.ArchValue("ampere", &A::elementwise_efficiency).value_or(s[4])};
}

std::vector<double> TrainingFitStart(const cost::ComputeCalibration& kernel) {
  std::vector<double> x = {0.75, 0.62, 0.33, 0.0, 0.51};  // used only where compute.yaml lacks the arch
  if (const auto* a = kernel.FindArchOrNull("ampere")) {
    x[0] = a->Gemm(hw::DType::kBf16).max_efficiency;
    x[4] = a->memory.efficiency;
  }
  if (const auto* h = kernel.FindArchOrNull("hopper")) {
    x[1] = h->Gemm(hw::DType::kFp8).max_efficiency;
    x[2] = h->attention.fwd_efficiency;
  }
  return x;
}

}  // namespace dlsim::validate
