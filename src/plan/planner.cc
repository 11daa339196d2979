#include "dlsim/plan/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "dlsim/core/strings.h"
#include "dlsim/train/step_model.h"

namespace dlsim::plan {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

int RecomputeWeight(train::Recompute r) {
  switch (r) {
    case train::Recompute::kNone:
      return 0;
    case train::Recompute::kSelective:
      return 1;
    case train::Recompute::kFull:
      return 2;
  }
  return 0;
}

// One simulation context and schedule registry per worker.
struct Worker {
  std::unique_ptr<train::OwnedStepContext> ctx;
  std::unique_ptr<train::PipelineScheduleRegistry> schedules;
};

// Candidates that differ only in the recompute mode, lightest first.
std::vector<std::vector<size_t>> RecomputeGroups(const std::vector<Candidate>& cands) {
  std::map<std::tuple<int, int, int, int, int, int, int, int, int, int, bool>, size_t> index;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < cands.size(); ++i) {
    const Candidate& c = cands[i];
    auto key = std::make_tuple(c.gpus, c.global_batch, c.micro_batch, c.tp, c.pp, c.cp, c.dp,
                               c.virtual_stages, c.zero, static_cast<int>(c.schedule), c.sequence_parallel);
    auto [it, fresh] = index.emplace(key, groups.size());
    if (fresh) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  for (auto& g : groups)
    std::stable_sort(g.begin(), g.end(), [&](size_t a, size_t b) {
      return RecomputeWeight(cands[a].recompute) < RecomputeWeight(cands[b].recompute);
    });
  return groups;
}

// Evaluates `ids` (indices into `cands`) and stores the results in `evals`.
void EvaluateBatch(const std::vector<size_t>& ids, const std::vector<Candidate>& cands, Backend& backend,
                   const EvaluateFn& fn, const ProgressFn& progress, size_t* done, size_t total,
                   std::vector<std::optional<Evaluation>>* evals) {
  std::vector<Candidate> batch;
  for (size_t id : ids) batch.push_back(cands[id]);
  const size_t before = *done;
  ProgressFn p;
  if (progress) p = [&](size_t d, size_t) { progress(before + d, total); };
  std::vector<Evaluation> out = backend.EvaluateAll(batch, fn, p);
  for (size_t i = 0; i < ids.size(); ++i) (*evals)[ids[i]] = std::move(out[i]);
  *done += ids.size();
}

std::vector<size_t> ParetoFront(const std::vector<EvaluatedCandidate>& ev,
                                const std::vector<size_t>& feasible, double (*x)(const EvaluatedCandidate&)) {
  std::vector<size_t> order = feasible;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::make_tuple(x(ev[a]), ev[a].eval.step_time_s, ev[a].id) <
           std::make_tuple(x(ev[b]), ev[b].eval.step_time_s, ev[b].id);
  });
  std::vector<size_t> front;
  double best = kInf;
  for (size_t i : order) {
    if (ev[i].eval.step_time_s < best) {
      best = ev[i].eval.step_time_s;
      front.push_back(i);
    }
  }
  return front;
}

// `count` workers, each with its own simulation context from `make_context`; the first error stops.
Result<std::vector<Worker>> MakeWorkers(const ContextFactory& make_context, int count) {
  std::vector<Worker> workers(count);
  for (Worker& w : workers) {
    DLSIM_ASSIGN_OR_RETURN(w.ctx, make_context());
    w.schedules = std::make_unique<train::PipelineScheduleRegistry>("pipeline-schedule");
    train::RegisterPipelineSchedules(*w.schedules);
  }
  return workers;
}

// The index in `cands` of the scenario's own layout, folded like every candidate; none when it is not there.
std::optional<size_t> FindBaseline(const train::TrainOptions& base, const PlanOptions& options,
                                   const MemoryLimits& limits, const std::vector<Candidate>& cands) {
  PlanOptions own;
  own.constraints = options.constraints;
  own.constraints.gpus.clear();
  own.constraints.gpus_min = own.constraints.gpus_max = 0;
  Enumeration self = EnumerateCandidates(base, own, limits);
  if (self.candidates.empty()) return std::nullopt;
  Candidate c = self.candidates[0];
  const auto& zeros = options.space.zero;
  if (c.dp == 1 && !zeros.empty()) c.zero = *std::min_element(zeros.begin(), zeros.end());
  auto it = std::find(cands.begin(), cands.end(), c);
  if (it == cands.end()) return std::nullopt;
  return static_cast<size_t>(it - cands.begin());
}

// Simulates recompute modes in phases: phase k simulates the k-th lightest recompute mode of every layout
// none of whose lighter modes fit; the rest of a group is dominated once one mode fits and stays unevaluated.
void EvaluateLightestFitting(const std::vector<Candidate>& cands, Backend& backend, const EvaluateFn& fn,
                             const ProgressFn& progress, size_t* done,
                             std::vector<std::optional<Evaluation>>* evals) {
  const auto groups = RecomputeGroups(cands);
  std::vector<size_t> next(groups.size(), 0);
  std::vector<bool> satisfied(groups.size(), false);
  for (;;) {
    std::vector<size_t> batch;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (satisfied[g] || next[g] >= groups[g].size()) continue;
      batch.push_back(groups[g][next[g]++]);
    }
    if (batch.empty()) break;
    EvaluateBatch(batch, cands, backend, fn, progress, done, cands.size(), evals);
    for (size_t g = 0; g < groups.size(); ++g) {
      if (satisfied[g] || next[g] == 0) continue;
      const auto& e = (*evals)[groups[g][next[g] - 1]];
      if (e && e->feasible) satisfied[g] = true;
    }
  }
}

// The evaluation of every candidate of `en`, or under `dominance` of the undominated ones and the baseline
// (the dominated ones stay empty and are counted in `en`).
std::vector<std::optional<Evaluation>> EvaluateCandidates(Enumeration& en, std::optional<size_t> base_id,
                                                          bool dominance, Backend& backend,
                                                          const EvaluateFn& fn, const ProgressFn& progress) {
  const std::vector<Candidate>& cands = en.candidates;
  std::vector<std::optional<Evaluation>> evals(cands.size());
  size_t done = 0;
  if (!dominance) {
    std::vector<size_t> all(cands.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    EvaluateBatch(all, cands, backend, fn, progress, &done, cands.size(), &evals);
    return evals;
  }
  EvaluateLightestFitting(cands, backend, fn, progress, &done, &evals);
  if (base_id && !evals[*base_id])
    EvaluateBatch({*base_id}, cands, backend, fn, progress, &done, done + 1, &evals);
  uint64_t dominated = 0;
  for (const auto& e : evals) dominated += e ? 0 : 1;
  en.AddPruned(kPrunedDominated, dominated);
  return evals;
}

// The result's counts and every evaluated candidate with its objective and score, the feasible ones listed
// (unsorted) in `ranking`; `evals` is moved from.
PlanResult ScoreEvaluations(const train::TrainOptions& base, const Constraints& cons, const Enumeration& en,
                            std::vector<std::optional<Evaluation>>& evals, std::optional<size_t> base_id) {
  const std::vector<Candidate>& cands = en.candidates;
  PlanResult r;
  r.objective = cons.objective;
  r.space_size = en.space_size;
  r.pruned = en.pruned;
  r.pruned_total = en.PrunedTotal();
  for (size_t i = 0; i < cands.size(); ++i) {
    if (!evals[i]) continue;
    EvaluatedCandidate ec{i, cands[i], std::move(*evals[i]), 0, 0};
    std::tie(ec.objective, ec.score) = ScoreOf(base, cons, ec.candidate, ec.eval);
    if (base_id && *base_id == i) r.baseline = r.evaluated.size();
    if (ec.eval.feasible) r.ranking.push_back(r.evaluated.size());
    r.evaluated.push_back(std::move(ec));
  }
  return r;
}

// Sorts `r.ranking` (RanksBefore), then finds the baseline's rank and the Pareto fronts over GPUs
// and memory.
void RankFeasible(PlanResult& r) {
  std::sort(r.ranking.begin(), r.ranking.end(),
            [&](size_t a, size_t b) { return RanksBefore(r.evaluated[a], r.evaluated[b]); });
  if (r.baseline) {
    auto it = std::find(r.ranking.begin(), r.ranking.end(), *r.baseline);
    if (it != r.ranking.end()) r.baseline_rank = static_cast<size_t>(it - r.ranking.begin()) + 1;
  }
  r.pareto_gpus = ParetoFront(r.evaluated, r.ranking, [](const EvaluatedCandidate& e) {
    return static_cast<double>(e.candidate.gpus);
  });
  r.pareto_memory = ParetoFront(r.evaluated, r.ranking,
                                [](const EvaluatedCandidate& e) { return e.eval.peak_memory_bytes; });
}

}  // namespace

Evaluation SimulateCandidate(const train::TrainOptions& base, const Candidate& c,
                             const train::StepContext& ctx, const train::PipelineScheduleRegistry& schedules,
                             Bytes usable) {
  Result<train::StepResult> sim =
      train::SimulateTrainingStep(ApplyCandidate(base, c), ctx, schedules, nullptr);
  Evaluation e;
  if (!sim.ok()) {  // not a property of the layout (e.g. an unreadable length file): say so
    e.reason = "error: " + sim.error().message;
    return e;
  }
  const train::StepResult& r = *sim;
  e.feasible = r.feasible;
  e.reason = r.reason;
  e.step_time_s = r.step_time_s;
  e.tokens_per_s_per_gpu = r.tokens_per_s_per_gpu;
  e.mfu = r.mfu;
  e.peak_memory_bytes = r.peak_memory.value();
  e.micro_batches = r.plan.micro_batches;
  e.breakdown = r.breakdown;
  e.bottleneck = r.bottleneck;
  if (e.feasible && r.peak_memory > usable) {
    e.feasible = false;
    e.reason = "peak memory " + FormatNumber(r.peak_memory.ToGiB(), 4) + " GiB exceeds the usable " +
               FormatNumber(usable.ToGiB(), 4) + " GiB (memory headroom)";
  }
  return e;
}

std::pair<double, double> ScoreOf(const train::TrainOptions& base, const Constraints& cons,
                                  const Candidate& c, const Evaluation& e) {
  const double seq = base.training.seq_len;
  const double target =
      cons.tokens_per_step ? static_cast<double>(*cons.tokens_per_step) : base.training.global_batch * seq;
  const double tokens = c.global_batch * seq;
  double value = 0, score = 0;
  switch (cons.objective) {
    case Objective::kStepTime:
      value = score = e.step_time_s * target / tokens;
      break;
    case Objective::kTokensPerGpuSecond:
      value = e.tokens_per_s_per_gpu;
      score = -value;
      break;
    case Objective::kCost: {
      const int per_node = base.hardware.gpus_per_node;
      const double billed = c.gpus <= per_node ? per_node : std::ceil(double(c.gpus) / per_node) * per_node;
      value = score = billed * cons.gpu_hour_cost / 3600.0 * e.step_time_s / tokens * 1e6;
      break;
    }
  }
  if (!e.feasible) score = kInf;
  return {value, score};
}

std::string WhyDifferent(const EvaluatedCandidate& best, const EvaluatedCandidate& c, Objective objective) {
  if (&best == &c || best.id == c.id) return "best";
  const double rel = objective == Objective::kTokensPerGpuSecond ? best.objective / c.objective - 1
                                                                 : c.objective / best.objective - 1;
  std::string out = (rel >= 0 ? "+" : "") + FormatNumber(100 * rel, 3) + "%";
  const train::Breakdown& a = best.eval.breakdown;
  const train::Breakdown& b = c.eval.breakdown;
  const std::pair<double, const char*> deltas[] = {{b.compute_s - a.compute_s, "compute"},
                                                   {b.contention_s - a.contention_s, "contention"},
                                                   {b.tp_comm_s - a.tp_comm_s, "TP communication"},
                                                   {b.cp_comm_s - a.cp_comm_s, "CP communication"},
                                                   {b.ep_comm_s - a.ep_comm_s, "EP all-to-all"},
                                                   {b.pp_bubble_s - a.pp_bubble_s, "pipeline bubble"},
                                                   {b.dp_comm_s - a.dp_comm_s, "DP communication"},
                                                   {b.optimizer_s - a.optimizer_s, "optimizer"},
                                                   {b.param_gather_s - a.param_gather_s, "parameter gather"}};
  const auto* top = &deltas[0];
  for (const auto& d : deltas)
    if (d.first > top->first) top = &d;
  if (top->first > 0) out += ": " + std::string(top->second) + " +" + FormatNumber(top->first, 3) + " s";
  const std::string diff = DiffCandidates(best.candidate, c.candidate);
  if (!diff.empty()) out += "; " + diff;
  return out;
}

Result<PlanResult> RunPlanner(const train::TrainOptions& base, const PlanOptions& options,
                              const ContextFactory& make_context, Backend& backend,
                              const ProgressFn& progress) {
  const auto start = std::chrono::steady_clock::now();
  DLSIM_ASSIGN_OR_RETURN(std::vector<Worker> workers,
                         MakeWorkers(make_context, std::max(1, backend.Workers())));
  const train::StepContext& ctx0 = workers[0].ctx->ctx;
  const MemoryLimits limits{ctx0.gpu->hbm_capacity, ctx0.framework_overhead,
                            options.constraints.memory_headroom};
  Enumeration en = EnumerateCandidates(base, options, limits);
  const Bytes usable = limits.Usable();
  const EvaluateFn fn = [&](const Candidate& c, int w) {
    return SimulateCandidate(base, c, workers[w].ctx->ctx, *workers[w].schedules, usable);
  };
  const std::optional<size_t> base_id = FindBaseline(base, options, limits, en.candidates);
  std::vector<std::optional<Evaluation>> evals =
      EvaluateCandidates(en, base_id, options.dominance, backend, fn, progress);
  PlanResult r = ScoreEvaluations(base, options.constraints, en, evals, base_id);
  r.backend = backend.Describe();
  r.usable_memory_bytes = usable.ToBytes();
  RankFeasible(r);
  r.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string_view ObjectiveName(Objective o) {
  switch (o) {
    case Objective::kStepTime:
      return "step_time";
    case Objective::kTokensPerGpuSecond:
      return "tokens_per_gpu_second";
    case Objective::kCost:
      return "cost";
  }
  return "?";
}

bool RanksBefore(const EvaluatedCandidate& a, const EvaluatedCandidate& b) {
  return std::make_tuple(a.score, a.candidate.gpus, a.id) < std::make_tuple(b.score, b.candidate.gpus, b.id);
}

}  // namespace dlsim::plan
