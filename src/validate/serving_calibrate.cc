#include "dlsim/validate/serving_calibrate.h"

#include <cmath>
#include <memory>

#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/setup.h"
#include "dlsim/serve/simulator.h"

namespace dlsim::validate {
namespace {

constexpr double kMaxStepUs = 50'000, kMaxPerRequestUs = 2'000;
constexpr int kRounds = 12, kGoldenSteps = 28;

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

// Golden-section search of `f` over [lo, hi] (f unimodal there).
template <typename F>
Result<double> Golden(F f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  DLSIM_ASSIGN_OR_RETURN(double fc, f(c));
  DLSIM_ASSIGN_OR_RETURN(double fd, f(d));
  for (int i = 0; i < kGoldenSteps; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc, c = b - g * (b - a);
      DLSIM_ASSIGN_OR_RETURN(fc, f(c));
    } else {
      a = c, c = d, fc = fd, d = a + g * (b - a);
      DLSIM_ASSIGN_OR_RETURN(fd, f(d));
    }
  }
  return (a + b) / 2;
}

double Mape(const std::vector<double>& measured, const std::vector<double>& predicted) {
  double s = 0;
  for (size_t i = 0; i < measured.size(); ++i) s += std::fabs(predicted[i] - measured[i]) / measured[i];
  return measured.empty() ? 0 : 100 * s / static_cast<double>(measured.size());
}

// The fitted step and per-request time (the latter only with two or more runs), coordinate-wise.
Result<std::pair<double, std::optional<double>>> FitTpot(const std::vector<ServingRun>& runs, const Runs& sim,
                                                         double step0, double per_request0) {
  double step = step0;
  std::optional<double> per_request;
  if (runs.size() >= 2) per_request = per_request0;
  auto loss = [&](std::optional<double> s, std::optional<double> p) -> Result<double> {
    DLSIM_ASSIGN_OR_RETURN(auto t, sim.Times(s, p, false));
    return TpotLoss(runs, t);
  };
  for (int round = 0; round < (per_request ? kRounds : 1); ++round) {
    DLSIM_ASSIGN_OR_RETURN(step, Golden([&](double s) { return loss(s, per_request); }, 0, kMaxStepUs));
    if (!per_request) continue;
    auto p = Golden([&](double v) { return loss(step, v); }, 0, kMaxPerRequestUs);
    if (!p.ok()) return p.error();
    per_request = *p;
  }
  return std::pair{step, per_request};
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
  r.tpot_mape_before = Mape(tm, tb);
  r.tpot_mape_after = Mape(tm, ta);
  if (!fm.empty()) r.ttft_mape_before = Mape(fm, fb), r.ttft_mape_after = Mape(fm, fa);
  return r;
}

}  // namespace dlsim::validate
