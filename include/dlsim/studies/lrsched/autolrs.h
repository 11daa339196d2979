// AutoLRS (Jin et al., "AutoLRS: Automatic Learning-Rate Schedule by Bayesian Optimization on the
// Fly", ICLR'21) on a real training loop (lrsched/mlp.h), and the schedules it is compared with.
//
// AutoLRS splits training into stages. In a stage of tau steps, Bayesian optimisation
// (lrsched/bayes_opt.h) over log10(lr) in [lr_min, lr_max] tries k learning rates; each trial
// restores the stage's checkpoint, trains tau' steps at its rate, records the probe validation
// loss at `points` evenly spaced steps, fits the exponential forecaster (lrsched/forecast.h)
// and tells the BO the loss it predicts after tau steps (clamped at 0: a cross-entropy cannot go
// below; a trial whose probe loss rose to its starting loss is told its last loss instead, the
// released code's guard; a non-finite loss is told as 1e6). The stage then restores the checkpoint and trains
// tau steps at the best predicted rate. After each stage tau' and tau double while tau' < tau_max / 10 (the
// released code's constants: tau' = 100, tau = 1000, k = 10, tau_max = 8000, kappa = 1e6). Trial steps are
// thrown away: they are the tuner's overhead (trial_steps).
//
//   AutoLrsResult r = RunAutoLrs(task, trainer_options, {.lr_min = 1e-3, .lr_max = 1}, target, 20000, 50);
// Deterministic for the seeds. Thread-safe for distinct arguments.
#ifndef DLSIM_STUDIES_LRSCHED_AUTOLRS_H_
#define DLSIM_STUDIES_LRSCHED_AUTOLRS_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "dlsim/studies/lrsched/mlp.h"

namespace dlsim::lrsched {

struct AutoLrsOptions {
  double lr_min = 1e-3, lr_max = 1;
  int tau_prime = 100, tau = 1000, k = 10, tau_max = 8000;
  int points = 16;     // probe evaluations per trial
  double kappa = 1e6;  // LCB weight
  uint64_t seed = 1;
};

struct StageRecord {
  int start_step = 0, tau = 0, tau_prime = 0;
  double lr = 0, predicted = 0, reached = 0;  // chosen lr, its forecast, the probe loss after the stage
};

// Validation loss every `eval_every` kept steps: (step, loss).
using LossCurve = std::vector<std::pair<int, double>>;
// The first step of `curve` whose loss is <= target.
std::optional<int> FirstReach(const LossCurve& curve, double target);

struct AutoLrsResult {
  std::optional<int> steps_to_target;  // kept training steps when the validation loss first <= target
  int steps = 0;                       // kept steps run
  int trial_steps = 0;                 // steps of thrown-away trials
  double final_validation = 0;
  std::vector<StageRecord> stages;
  LossCurve curve;
};

// Runs AutoLRS until the validation loss (checked every `eval_every` kept steps) reaches
// `target` or `max_steps` kept steps have run.
AutoLrsResult RunAutoLrs(const TeacherTask& task, const TrainerOptions& trainer, const AutoLrsOptions& o,
                         double target, int max_steps, int eval_every);

// A fixed schedule over `total` steps: lr(step).
struct ScheduleResult {
  std::optional<int> steps_to_target;
  double final_validation = 0;
  LossCurve curve;
};
double StepDecayLr(double lr0, int total, int step);  // x0.1 at 50% and 75% of total
double CosineLr(double lr0, int total, int step);     // lr0 x (1 + cos(pi step / total)) / 2

// Trains `total` steps on lr(step), checking the validation loss every `eval_every` steps.
ScheduleResult RunSchedule(const TeacherTask& task, const TrainerOptions& trainer,
                           const std::function<double(int)>& lr, int total, double target, int eval_every);

}  // namespace dlsim::lrsched

#endif  // DLSIM_STUDIES_LRSCHED_AUTOLRS_H_
