// k-fold and leave-one-set-out cross-validation of a fit (see the header).
#include "dlsim/validate/cross_validation.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "dlsim/core/parallel_for.h"
#include "dlsim/core/rng.h"

namespace dlsim::validate {
namespace {

// One refit: the rows it sees, where it starts, its stages and iterations.
struct Job {
  std::string held_out;
  RowSelection selection;
  const FitProblem* problem = nullptr;
  std::vector<double> start;
  NelderMeadOptions options;
};

// The two refit schedules: k-fold (warm, the finest stage) and leave-one-set-out (every stage).
struct Schedules {
  FitProblem warm, cold;
  std::vector<double> warm_start, cold_start;
};

// The fit sets among `sets`, in their order.
std::vector<const ValidationSet*> FitSetsOf(const std::vector<ValidationSet>& sets,
                                            const std::vector<std::string>& fit_sets) {
  std::vector<const ValidationSet*> out;
  for (const auto& s : sets)
    if (std::find(fit_sets.begin(), fit_sets.end(), s.name) != fit_sets.end()) out.push_back(&s);
  return out;
}

std::vector<std::string> Labels(const ValidationSet& s) {
  std::vector<std::string> labels;
  for (const auto& r : s.rows) labels.push_back(r.label);
  return labels;
}

// k-fold jobs (fold j left out of every set), then one job per set left out.
std::vector<Job> MakeJobs(const std::vector<const ValidationSet*>& sets,
                          const std::vector<std::vector<int>>& folds, const Schedules& sched,
                          const CrossValidationOptions& o) {
  std::vector<Job> jobs;
  for (int f = 0; f < o.folds; ++f) {
    Job job{"fold " + std::to_string(f), {}, &sched.warm, sched.warm_start, o.kfold_fit};
    for (size_t i = 0; i < sets.size(); ++i) {
      std::vector<bool> seen(folds[i].size());
      for (size_t r = 0; r < seen.size(); ++r) seen[r] = folds[i][r] != f;
      job.selection[sets[i]->name] = std::move(seen);
    }
    jobs.push_back(std::move(job));
  }
  if (sets.size() < 2) return jobs;
  const auto& only = o.loso_sets;
  for (const ValidationSet* s : sets) {
    if (!only.empty() && std::find(only.begin(), only.end(), s->name) == only.end()) continue;
    jobs.push_back(
        {s->name, {{s->name, std::vector<bool>(s->rows.size())}}, &sched.cold, sched.cold_start, o.loso_fit});
  }
  return jobs;
}

// The job that left set `name` out, if any (jobs after the k-fold ones).
const FitResult* LosoFit(const std::vector<Job>& jobs, const std::vector<FitResult>& fits, int k,
                         const std::string& name) {
  for (size_t j = static_cast<size_t>(k); j < jobs.size(); ++j)
    if (jobs[j].held_out == name) return &fits[j];
  return nullptr;
}

// Runs every job on up to `threads` threads, the (longer) leave-one-set-out jobs first; results by
// job index.
std::vector<FitResult> RunJobs(const std::vector<Job>& jobs, int k, int threads, const ProgressFn& progress) {
  std::vector<FitResult> results(jobs.size());
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ParallelFor(
      jobs.size(), threads, 1,
      [&](size_t i, int) {
        const Job& job = jobs[(i + static_cast<size_t>(k)) % jobs.size()];
        results[(i + static_cast<size_t>(k)) % jobs.size()] =
            FitOnRows(*job.problem, job.start, job.options, job.selection);
      },
      progress);
  return results;
}

const ValidationSet* FindSet(const std::vector<ValidationSet>& sets, const std::string& name) {
  for (const auto& s : sets)
    if (s.name == name) return &s;
  return nullptr;
}

// Scores a set: each row by the k-fold fit that left its fold out, the set by its leave-one-set-out fit
// `loso` when there is one.
Result<SetCrossValidation> ScoreSet(const ValidationSet& base, const std::vector<int>& folds,
                                    const std::vector<FitResult>& fits, const FitResult* loso) {
  SetCrossValidation s{base.name, base.rows.size(), 0, base.Mape(), 0, std::nullopt, {}, {}, {}, {}};
  s.folds = folds.empty() ? 0 : *std::max_element(folds.begin(), folds.end()) + 1;
  double sum = 0;
  for (size_t r = 0; r < base.rows.size(); ++r) {
    const ValidationSet* held = FindSet(fits[folds[r]].sets, base.name);
    if (held == nullptr || held->rows.size() != base.rows.size())
      return Error::Internal("cross-validation: the fit without fold " + std::to_string(folds[r]) +
                             " did not predict set " + base.name);
    sum += std::fabs(held->rows[r].ErrorPct());
    s.labels.push_back(base.rows[r].label);
    s.measured.push_back(base.rows[r].measured);
    s.kfold_predicted.push_back(held->rows[r].predicted);
  }
  s.kfold_mape = base.rows.empty() ? 0 : sum / static_cast<double>(base.rows.size());
  if (loso != nullptr) {
    const ValidationSet* held = FindSet(loso->sets, base.name);
    if (held == nullptr) return Error::Internal("cross-validation: the fit without " + base.name + " failed");
    s.loso_mape = held->Mape();
    for (const ValidationRow& row : held->rows) s.loso_predicted.push_back(row.predicted);
  }
  return s;
}

}  // namespace

std::vector<int> AssignFolds(const std::vector<std::string>& labels, int k, uint64_t seed) {
  const Rng root(seed);
  std::vector<uint64_t> key(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) key[i] = root.Stream(labels[i]).NextU64();
  std::vector<size_t> order(labels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&key](size_t a, size_t b) { return key[a] < key[b]; });
  std::vector<int> fold(labels.size());
  for (size_t rank = 0; rank < order.size(); ++rank) fold[order[rank]] = static_cast<int>(rank % k);
  return fold;
}

Result<CrossValidationReport> CrossValidate(const FitProblem& problem, const std::vector<double>& x_start,
                                            const CrossValidationOptions& options) {
  if (options.folds < 2) return Error::InvalidArgument("cross-validation needs at least 2 folds");
  DLSIM_ASSIGN_OR_RETURN(std::vector<ValidationSet> base, problem.predict(x_start));
  const std::vector<const ValidationSet*> sets = FitSetsOf(base, problem.fit_sets);
  if (sets.empty()) return Error::NotFound("cross-validation: no fit set was predicted");
  const ValidationSet* largest = *std::max_element(
      sets.begin(), sets.end(),
      [](const ValidationSet* a, const ValidationSet* b) { return a->rows.size() < b->rows.size(); });
  if (static_cast<size_t>(options.folds) >
      largest->rows.size())  // folds with no row anywhere refit for nothing
    return Error::InvalidArgument("cross-validation: " + std::to_string(options.folds) +
                                  " folds, but the largest fit set (" + largest->name + ") has " +
                                  std::to_string(largest->rows.size()) + " rows: at most " +
                                  std::to_string(largest->rows.size()) + " folds (leave-one-out)");
  std::vector<std::vector<int>> folds;
  for (const ValidationSet* s : sets) folds.push_back(AssignFolds(Labels(*s), options.folds, options.seed));
  Schedules sched{problem, problem, x_start, options.cold_start.empty() ? x_start : options.cold_start};
  if (!problem.stage_steps.empty()) sched.warm.stage_steps = {problem.stage_steps.back()};
  sched.warm.grid_values.clear();  // a warm refinement: no scan of the grid parameter
  const std::vector<Job> jobs = MakeJobs(sets, folds, sched, options);
  const std::vector<FitResult> fits = RunJobs(jobs, options.folds, options.threads, options.progress);
  CrossValidationReport report{options.folds, options.seed, {}, {}};
  for (size_t i = 0; i < sets.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(SetCrossValidation s, ScoreSet(*sets[i], folds[i], fits,
                                                          LosoFit(jobs, fits, options.folds, sets[i]->name)));
    report.sets.push_back(std::move(s));
  }
  for (size_t j = 0; j < jobs.size(); ++j)
    report.fits.push_back(
        {jobs[j].held_out, fits[j].objective, fits[j].evaluations, fits[j].converged, fits[j].x});
  return report;
}

}  // namespace dlsim::validate
