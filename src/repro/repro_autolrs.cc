// AutoLRS (Jin et al., ICLR'21): learning-rate schedules by Bayesian optimisation with short
// trials. Claim: 1.22x (ResNet-50), 1.43x (Transformer), 1.5x (BERT) fewer steps to the original
// schedules' final metric.
//
// A simulator cannot invent training dynamics, so the algorithm runs for real (module lrsched):
// an MLP trained by SGD on a generated teacher task, AutoLRS (GP-BO over log10 lr, k trials of
// tau' steps, exponential forecast of the loss after tau steps) against a step-decay and a
// cosine schedule, each with its base rate tuned over a grid. Target: each baseline's final
// validation loss; steps to it counted every 50 steps. Not reproduced, so no cluster job uses
// these ratios (dlsim ships no lr_tuner table; docs/cluster.md).
// Choices and findings: docs/reproductions.md, "AutoLRS".
#include <fmt/format.h>

#include <algorithm>
#include <future>
#include <memory>
#include <optional>
#include <vector>

#include "dlsim/repro/reproduction.h"
#include "dlsim/studies/lrsched/autolrs.h"

namespace dlsim::repro {
namespace {

using lrsched::AutoLrsResult;
using lrsched::ScheduleResult;

constexpr int kTotal = 6000;  // the baselines' training length, steps
constexpr int kEvery = 50;    // validation every this many steps
constexpr double kBaseRates[] = {0.01, 0.03, 0.1, 0.3};

struct Baseline {
  std::string name;
  double lr0 = 0;
  ScheduleResult run;
};

// The schedule's base rate with the lowest final validation loss over the grid (hand tuning).
Baseline Tuned(const lrsched::TeacherTask& task, const lrsched::TrainerOptions& trainer,
               const std::string& name, bool cosine) {
  Baseline best;
  for (double lr0 : kBaseRates) {
    auto lr = [lr0, cosine](int s) {
      return cosine ? lrsched::CosineLr(lr0, kTotal, s) : lrsched::StepDecayLr(lr0, kTotal, s);
    };
    ScheduleResult r = lrsched::RunSchedule(task, trainer, lr, kTotal, -1, kEvery);
    if (best.lr0 == 0 || r.final_validation < best.run.final_validation) best = {name, lr0, std::move(r)};
  }
  return best;
}

// Trial steps spent in the stages that started before `step`.
int TrialsBefore(const AutoLrsResult& a, int step, int k) {
  int trials = 0;
  for (const lrsched::StageRecord& s : a.stages)
    if (s.start_step < step) trials += k * s.tau_prime;
  return trials;
}

using Json = nlohmann::ordered_json;

// A details row; every row has every column (the table prints the first row's columns).
Json Row(const std::string& name, const std::string& run) {
  Json row = {{"row", name}, {"run", run}};
  for (const char* key : {"reached", "baseline_lr0", "target_validation_loss", "baseline_steps",
                          "autolrs_steps", "trial_steps", "steps_ratio", "trial_overhead",
                          "ratio_with_trials", "stage_lr", "stage_forecast", "stage_probe_loss"})
    row[key] = Json();
  return row;
}

// AutoLRS against baseline b; returns baseline steps / AutoLRS kept steps to b's final validation
// loss, or, when AutoLRS did not reach it, baseline steps / the kept steps it ran (an upper bound).
double AddBaselineRow(const Baseline& b, const AutoLrsResult& a, int k, const std::string& run,
                      ReproResult& r) {
  const double goal = b.run.final_validation;
  const int base_steps = lrsched::FirstReach(b.run.curve, goal).value_or(kTotal);
  const std::optional<int> ours = lrsched::FirstReach(a.curve, goal);
  const int steps = ours.value_or(a.steps);
  const int trials = TrialsBefore(a, steps, k);
  Json row = Row("vs " + b.name, run);
  row["reached"] = ours.has_value();
  row["baseline_lr0"] = b.lr0;
  row["target_validation_loss"] = goal;
  row["baseline_steps"] = base_steps;
  row["autolrs_steps"] = steps;
  row["trial_steps"] = trials;
  row["steps_ratio"] = static_cast<double>(base_steps) / steps;
  row["trial_overhead"] = static_cast<double>(trials) / steps;
  row["ratio_with_trials"] = static_cast<double>(base_steps) / (steps + trials);
  r.details.push_back(row);
  return static_cast<double>(base_steps) / steps;
}

void AddStageRows(const AutoLrsResult& a, const std::string& range, ReproResult& r) {
  for (const lrsched::StageRecord& s : a.stages) {
    Json row =
        Row(fmt::format("stage at step {} (tau {}, tau' {})", s.start_step, s.tau, s.tau_prime), range);
    row["stage_lr"] = s.lr;
    row["stage_forecast"] = s.predicted;
    row["stage_probe_loss"] = s.reached;
    r.details.push_back(row);
  }
}

// The learning-rate ranges AutoLRS searches (more ranges: more rows, on the first seed).
constexpr std::pair<double, double> kRanges[] = {{1e-3, 1}};

constexpr uint64_t kSeeds[] = {1, 2, 3};  // trainer initialisation and data order; BO's first point

// One seed: tuned baselines, then AutoLRS over each range (the ablation range on the first seed
// only); returns the ratio vs step decay of the first range.
double RunSeed(const lrsched::TeacherTask& task, uint64_t seed, ReproResult& r) {
  lrsched::TrainerOptions tr;
  tr.seed = seed;
  const Baseline step = Tuned(task, tr, "step-decay", false);
  const Baseline cosine = Tuned(task, tr, "cosine", true);
  const double target = std::min(step.run.final_validation, cosine.run.final_validation);
  double headline = 0;
  for (auto [lo, hi] : kRanges) {
    if (seed != kSeeds[0] && lo != kRanges[0].first) continue;
    const lrsched::AutoLrsOptions o{
        .lr_min = lo, .lr_max = hi, .tau_prime = 20, .tau = 200, .k = 10, .tau_max = 1600, .seed = seed};
    const AutoLrsResult a = lrsched::RunAutoLrs(task, tr, o, target, 2 * kTotal, kEvery);
    const std::string tag = fmt::format("seed {} [{:g}, {:g}]", seed, lo, hi);
    const double ratio = AddBaselineRow(step, a, o.k, tag, r);
    AddBaselineRow(cosine, a, o.k, tag, r);
    if (seed == kSeeds[0]) AddStageRows(a, tag, r);
    if (lo == kRanges[0].first) headline = ratio;
  }
  return headline;
}

// Every seed: the seeds are independent runs, one thread each (the task is shared read-only),
// merged in seed order, so the output does not depend on the scheduling. Returns their ratios.
std::vector<double> RunSeeds(const lrsched::TeacherTask& task, ReproResult& r) {
  std::vector<std::future<std::pair<double, ReproResult>>> runs;
  for (uint64_t seed : kSeeds)
    runs.push_back(std::async(std::launch::async, [&task, seed] {
      ReproResult part;
      const double ratio = RunSeed(task, seed, part);
      return std::pair{ratio, std::move(part)};
    }));
  std::vector<double> ratios;
  for (auto& run : runs) {
    auto [ratio, part] = run.get();
    ratios.push_back(ratio);
    for (auto& row : part.details) r.details.push_back(std::move(row));
  }
  return ratios;
}

class AutoLrsReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv&) const override {
    const lrsched::TeacherTask task = lrsched::MakeTeacherTask({});
    ReproResult r;
    r.name = "autolrs";
    r.claim =
        "AutoLRS reaches the original schedules' final metric in 1.22x (ResNet-50), 1.43x (Transformer), "
        "1.5x (BERT) fewer steps (ICLR'21)";
    r.paper_ratio = 1.22;
    r.off_cause =
        "a 6,000-step MLP with label noise, unlike the paper's runs, and four departures from the released "
        "code (zero-clamped forecasts with ask-order ties, a validation probe and the rising-loss guard in "
        "every stage, no spline smoothing)";
    std::vector<double> ratios = RunSeeds(task, r);
    std::sort(ratios.begin(), ratios.end());
    r.our_ratio = ratios[ratios.size() / 2];  // the median seed
    r.workload =
        "MLP 16-64-8 (ReLU, softmax CE), SGD momentum 0.9, batch 32, on a generated teacher task (8,192 "
        "train / 2,048 validation, 10% label noise); AutoLRS tau'=20, tau=200 doubling to tau'=160, k=10, "
        "kappa=1e6, lr in [1e-3, 1]; seeds 1-3";
    r.baseline = fmt::format(
        "step decay (x0.1 at 50% and 75% of {} steps) and cosine, lr0 tuned per seed over {{0.01, 0.03, 0.1, "
        "0.3}} (details: baseline_lr0)",
        kTotal);
    r.notes =
        "ratio = baseline steps / AutoLRS kept steps to the step-decay schedule's final validation loss, the "
        "median of seeds 1-3 (where AutoLRS did not reach the target in 2x the baseline's steps, an upper "
        "bound: reached = false); AutoLRS's thrown-away trials (k x "
        "tau' per stage) are "
        "trial_overhead. Not reproduced: the cluster simulator ships no tuner table built from these rows";
    return r;
  }
};

}  // namespace

void RegisterAutoLrs(ReproRegistry& reg) {
  reg.RegisterBuiltin("autolrs", "AutoLRS (ICLR'21): GP-BO learning-rate stages on a real MLP vs step/cosine",
                      [] { return std::make_unique<AutoLrsReproduction>(); });
}

}  // namespace dlsim::repro
