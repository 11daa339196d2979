#include "dlsim/studies/lrsched/autolrs.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "dlsim/studies/lrsched/bayes_opt.h"
#include "dlsim/studies/lrsched/forecast.h"

namespace dlsim::lrsched {
namespace {

// One trial: from the checkpoint, tau' steps at lr, probe losses at `points` steps; the
// forecast of the probe loss after tau steps.
double Trial(const Trainer& checkpoint, double lr, int tau_prime, int tau, int points) {
  Trainer t = checkpoint;
  std::vector<double> x, y;
  int done = 0;
  for (int p = 1; p <= points; ++p) {
    const int until = tau_prime * p / points;
    t.Train(until - done, [lr](int) { return lr; });
    done = until;
    x.push_back(done);
    y.push_back(t.ProbeLoss());
  }
  const double start = checkpoint.ProbeLoss();
  for (double v : y) {
    if (!std::isfinite(v)) return 1e6;  // diverged (the released code tells 1e6 for a NaN loss)
    // The released code's guard: a trial whose loss rose to the loss it started from is told
    // its last loss, not a forecast (an exponential fit of a spiking curve extrapolates wildly).
    if (v >= start) return y.back();
  }
  return std::max(FitExponential(x, y).At(tau), 0.0);
}

// Trains `steps` kept steps at lr, checking the target every `eval_every` global steps.
void Exploit(Trainer& t, double lr, int steps, double target, int eval_every, AutoLrsResult& r) {
  for (int s = 0; s < steps; ++s) {
    t.Train(1, [lr](int) { return lr; });
    if (t.step() % eval_every != 0) continue;
    r.curve.push_back({t.step(), t.ValidationLoss()});
    if (!r.steps_to_target && r.curve.back().second <= target) r.steps_to_target = t.step();
  }
}

}  // namespace

std::optional<int> FirstReach(const LossCurve& curve, double target) {
  for (const auto& [step, loss] : curve)
    if (loss <= target) return step;
  return std::nullopt;
}

AutoLrsResult RunAutoLrs(const TeacherTask& task, const TrainerOptions& trainer, const AutoLrsOptions& o,
                         double target, int max_steps, int eval_every) {
  AutoLrsResult r;
  Trainer t(task, trainer);
  int tau_prime = o.tau_prime, tau = o.tau;
  for (int stage = 0; t.step() < max_steps && !r.steps_to_target; ++stage) {
    BayesOpt1D bo({.lo = std::log10(o.lr_min),
                   .hi = std::log10(o.lr_max),
                   .kappa = o.kappa,
                   .seed = o.seed + static_cast<uint64_t>(stage)});
    for (int i = 0; i < o.k; ++i) {
      const double x = bo.Ask();
      bo.Tell(x, Trial(t, std::pow(10.0, x), tau_prime, tau, o.points));
      r.trial_steps += tau_prime;
    }
    const auto [best_x, predicted] = bo.Best();
    StageRecord rec{t.step(), tau, tau_prime, std::pow(10.0, best_x), predicted, 0};
    Exploit(t, rec.lr, std::min(tau, max_steps - t.step()), target, eval_every, r);
    rec.reached = t.ProbeLoss();
    r.stages.push_back(rec);
    if (tau_prime < o.tau_max / 10) tau_prime *= 2, tau *= 2;
  }
  r.steps = t.step();
  r.final_validation = t.ValidationLoss();
  return r;
}

double StepDecayLr(double lr0, int total, int step) {
  if (step >= total * 3 / 4) return lr0 * 0.01;
  if (step >= total / 2) return lr0 * 0.1;
  return lr0;
}

double CosineLr(double lr0, int total, int step) {
  return lr0 * 0.5 * (1 + std::cos(std::numbers::pi * std::min(step, total) / total));
}

ScheduleResult RunSchedule(const TeacherTask& task, const TrainerOptions& trainer,
                           const std::function<double(int)>& lr, int total, double target, int eval_every) {
  ScheduleResult r;
  Trainer t(task, trainer);
  while (t.step() < total) {
    t.Train(std::min(eval_every, total - t.step()), lr);
    r.curve.push_back({t.step(), t.ValidationLoss()});
    if (!r.steps_to_target && r.curve.back().second <= target) r.steps_to_target = t.step();
  }
  r.final_validation = t.ValidationLoss();
  return r;
}

}  // namespace dlsim::lrsched
