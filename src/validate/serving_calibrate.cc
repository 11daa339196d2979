#include "dlsim/validate/serving_calibrate.h"

#include <algorithm>
#include <cmath>
#include <memory>

#include "dlsim/core/nelder_mead.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/setup.h"
#include "dlsim/serve/simulator.h"
#include "dlsim/validate/validation.h"

namespace dlsim::validate {
namespace {

constexpr double kMaxStepUs = 50'000, kMaxPerRequestUs = 2'000;
// The first simplex's steps and the iterations of each of the two passes (the second at a quarter the steps).
constexpr double kStepProbeUs = 2'000, kPerRequestProbeUs = 50;
constexpr int kIterations = 80;

// Each run's options and cost model, built once; Time() simulates them all under one engine host.
class Runs {
 public:
  static Result<Runs> Make(const std::vector<ServingRun>& runs, const catalog::Catalogs& cat) {
    Runs r;
    r.runs_ = &runs;
    DLSIM_ASSIGN_OR_RETURN(r.env_, serve::MakeServeEnvironment(cat.compute, cat.network));
    for (const ServingRun& run : runs) {
      serve::ServeOptions o = run.options;
      if (o.engine_calibrations.empty()) o.engine_calibrations = cat.training.serving_engines;
      DLSIM_ASSIGN_OR_RETURN(auto cost, serve::MakeCostModel(o, *r.env_));
      r.options_.push_back(std::move(o));
      r.costs_.push_back(std::move(cost));
    }
    return r;
  }
  // Mean TPOT and TTFT (ms) of every run with its host's step and per-request time set (and the first-token
  // path zeroed when `no_first_token`).
  Result<std::vector<std::pair<double, double>>> Times(std::optional<double> step_us,
                                                       std::optional<double> per_request_us,
                                                       bool no_first_token) const {
    std::vector<std::pair<double, double>> out;
    for (size_t i = 0; i < options_.size(); ++i) {
      serve::ServeOptions o = options_[i];
      serve::EngineHost h = serve::HostOf(o);
      if (step_us) h.step = Micros(*step_us);
      if (per_request_us) h.per_request = Micros(*per_request_us);
      if (no_first_token) h.first_token = Duration();
      o.engine_host = h;
      auto r = serve::Simulate(o, *costs_[i], env_->schedulers, env_->routers, nullptr);
      if (!r.ok()) return Error::InvalidArgument("run '" + (*runs_)[i].label + "': " + r.error().message);
      if (!r->feasible) return Error::InvalidArgument("run '" + (*runs_)[i].label + "': " + r->reason);
      if (r->metrics.tpot_requests == 0)
        return Error::InvalidArgument("run '" + (*runs_)[i].label + "': no request has two output tokens");
      out.push_back({r->metrics.tpot_s.mean * 1e3, r->metrics.ttft_s.mean * 1e3});
    }
    return out;
  }
  const serve::ServeOptions& options(size_t i) const { return options_[i]; }

 private:
  const std::vector<ServingRun>* runs_ = nullptr;
  std::unique_ptr<serve::ServeEnvironment> env_;
  std::vector<serve::ServeOptions> options_;
  std::vector<std::unique_ptr<serve::IterationCostModel>> costs_;
};

double TpotLoss(const std::vector<ServingRun>& runs, const std::vector<std::pair<double, double>>& t) {
  double s = 0;
  for (size_t i = 0; i < runs.size(); ++i) s += std::pow(std::log(t[i].first / runs[i].tpot_ms), 2);
  return s / static_cast<double>(runs.size());
}

// The fitted step and per-request time (the latter only with two or more runs): Nelder-Mead on the mean
// squared log TPOT ratio (core/nelder_mead.h, as `dlsim calibrate` fits a stack), each value clamped to its
// range.
Result<std::pair<double, std::optional<double>>> FitTpot(const std::vector<ServingRun>& runs, const Runs& sim,
                                                         double step0, double per_request0) {
  const bool two = runs.size() >= 2;
  auto at = [&](const std::vector<double>& x) {
    return std::pair{std::clamp(x[0], 0.0, kMaxStepUs),
                     two ? std::optional(std::clamp(x[1], 0.0, kMaxPerRequestUs)) : std::nullopt};
  };
  std::optional<Error> failed;
  auto objective = [&](const std::vector<double>& x) {
    const auto [s, p] = at(x);
    auto t = sim.Times(s, p, false);
    if (!t.ok() && !failed) failed = t.error();
    return t.ok() ? TpotLoss(runs, *t) : 1e9;
  };
  std::vector<double> x = {step0}, step = {kStepProbeUs};
  if (two) x.push_back(per_request0), step.push_back(kPerRequestProbeUs);
  for (const double scale : {1.0, 0.25}) {
    std::vector<double> s = step;
    for (double& v : s) v *= scale;
    x = MinimizeNelderMead(objective, x, s, {.iterations = kIterations, .f_tolerance = 1e-10}).x;
    if (failed) return *failed;
  }
  return at(x);
}

}  // namespace

Result<ServingCalibrateResult> CalibrateServing(const std::vector<ServingRun>& runs,
                                                const catalog::Catalogs& catalogs) {
  if (runs.empty()) return Error::InvalidArgument("no runs to calibrate on");
  ServingCalibrateResult r;
  r.engine = runs.front().options.engine;
  for (const ServingRun& run : runs)
    if (run.options.engine != r.engine)
      return Error::InvalidArgument("run '" + run.label + "' is on engine " + run.options.engine + ", run '" +
                                    runs.front().label + "' on " + r.engine +
                                    ": calibrate one engine per file");
  DLSIM_ASSIGN_OR_RETURN(Runs sim, Runs::Make(runs, catalogs));
  const serve::EngineHost before = serve::HostOf(sim.options(0));
  r.step_before_us = before.step.ToMicros();
  r.per_request_before_us = before.per_request.ToMicros();
  r.first_token_before_us = before.first_token.ToMicros();
  DLSIM_ASSIGN_OR_RETURN(auto shipped, sim.Times(std::nullopt, std::nullopt, false));
  DLSIM_ASSIGN_OR_RETURN(auto fit, FitTpot(runs, sim, r.step_before_us, r.per_request_before_us));
  r.fitted = {.engine = r.engine, .step_us = fit.first, .per_request_us = fit.second};
  DLSIM_ASSIGN_OR_RETURN(auto bare, sim.Times(fit.first, fit.second, true));
  double residual = 0;
  int ttfts = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs[i].ttft_ms) residual += *runs[i].ttft_ms - bare[i].second, ++ttfts;
  if (ttfts > 0) r.fitted.first_token_us = std::max(0.0, 1e3 * residual / ttfts);
  std::vector<double> tm, tb, ta, fm, fb, fa;
  for (size_t i = 0; i < runs.size(); ++i) {
    ServingRunFit f{.label = runs[i].label, .tpot_ms = runs[i].tpot_ms, .ttft_ms = runs[i].ttft_ms};
    f.tpot_before_ms = shipped[i].first;
    f.tpot_after_ms = bare[i].first;
    f.ttft_before_ms = shipped[i].second;
    f.ttft_after_ms =
        bare[i].second + (ttfts > 0 ? *r.fitted.first_token_us / 1e3 : before.first_token.ToMillis());
    tm.push_back(f.tpot_ms), tb.push_back(f.tpot_before_ms), ta.push_back(f.tpot_after_ms);
    if (f.ttft_ms) fm.push_back(*f.ttft_ms), fb.push_back(f.ttft_before_ms), fa.push_back(f.ttft_after_ms);
    r.runs.push_back(f);
  }
  r.tpot_mape_before = Mape(tb, tm);
  r.tpot_mape_after = Mape(ta, tm);
  if (!fm.empty()) r.ttft_mape_before = Mape(fb, fm), r.ttft_mape_after = Mape(fa, fm);
  return r;
}

}  // namespace dlsim::validate
