// Gavel's max-min fairness policy (policies/gavel.h). Formulation after stanford-futuredata/gavel
// scheduler/policies/max_min_fairness.py (MaxMinFairnessPolicyWithPerf: objective weights
// throughput x scale / (priority x proportional throughput); base constraints in
// policies/policy.py), proportional.py (the equal-share throughput) and scheduler.py
// (_update_priorities: priority = allocation / fraction of time received; _reset_time_run_so_far;
// _schedule_jobs_on_workers_helper: per-type queues in priority order, packing while GPUs last).
#include "dlsim/cluster/policies/gavel.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "dlsim/core/linear_program.h"
#include "dlsim/core/rng.h"

namespace dlsim::cluster {
namespace {

using Matrix = std::vector<std::vector<double>>;

Status CheckProblem(const MaxMinProblem& p) {
  const size_t n = p.throughput.size(), types = p.gpus.size();
  if (n == 0 || types == 0) return Error::InvalidArgument("max-min fairness: no jobs or no GPU types");
  if (p.scale.size() != n || p.weight.size() != n)
    return Error::InvalidArgument("max-min fairness: scale and weight need one entry per job");
  for (size_t j = 0; j < n; ++j) {
    if (p.throughput[j].size() != types || p.scale[j] <= 0 || !(p.weight[j] > 0))
      return Error::InvalidArgument(fmt::format("max-min fairness: job {}: ragged row, scale or weight", j));
    if (std::none_of(p.throughput[j].begin(), p.throughput[j].end(), [](double v) { return v > 0; }))
      return Error::InvalidArgument(
          fmt::format("max-min fairness: job {} has no throughput on any GPU type", j));
  }
  return Status::Ok();
}

// c[j][t]: the objective weight of X[j][t] (policies/gavel.h).
Matrix Coefficients(const MaxMinProblem& p, bool aware) {
  const double total = static_cast<double>(std::accumulate(p.gpus.begin(), p.gpus.end(), int64_t{0}));
  Matrix c(p.throughput.size(), std::vector<double>(p.gpus.size()));
  for (size_t j = 0; j < c.size(); ++j) {
    double share = 0;
    for (size_t t = 0; t < p.gpus.size(); ++t)
      share += (aware ? p.throughput[j][t] : 1.0) * static_cast<double>(p.gpus[t]) / total;
    for (size_t t = 0; t < p.gpus.size(); ++t)
      c[j][t] = (aware ? p.throughput[j][t] : 1.0) * p.scale[j] / (p.weight[j] * share);
  }
  return c;
}

// The LP over X (variable j * types + t) and z (the last variable). `floor` >= 0: phase two, every
// job keeps at least `floor` and the objective is the sum of c X; otherwise phase one, max z.
LinearProgram BuildLp(const MaxMinProblem& p, const Matrix& c, double floor) {
  const int types = static_cast<int>(p.gpus.size()), n = static_cast<int>(c.size());
  LinearProgram lp;
  for (int j = 0; j < n; ++j)
    for (int t = 0; t < types; ++t) lp.AddVariable(0, 1, floor >= 0 ? c[j][t] : 0);
  const int z = lp.AddVariable(floor >= 0 ? floor : 0, kLpInfinity, floor >= 0 ? 0 : 1);
  for (int j = 0; j < n; ++j) {
    std::vector<std::pair<int, double>> level{{z, -1}}, time;
    for (int t = 0; t < types; ++t)
      level.push_back({j * types + t, c[j][t]}), time.push_back({j * types + t, 1});
    lp.AddRow(std::move(level), 0, kLpInfinity);  // sum_t c X >= z
    lp.AddRow(std::move(time), -kLpInfinity, 1);  // sum_t X <= 1
  }
  for (int t = 0; t < types; ++t) {
    std::vector<std::pair<int, double>> use;
    for (int j = 0; j < n; ++j) use.push_back({j * types + t, static_cast<double>(p.scale[j])});
    lp.AddRow(std::move(use), -kLpInfinity, static_cast<double>(p.gpus[t]));
  }
  return lp;
}

// Each job's total time spread over the types in proportion to their GPUs (agnostic optimum).
void SpreadByCapacity(const MaxMinProblem& p, Matrix& x) {
  const double total = static_cast<double>(std::accumulate(p.gpus.begin(), p.gpus.end(), int64_t{0}));
  for (auto& row : x) {
    const double sum = std::accumulate(row.begin(), row.end(), 0.0);
    for (size_t t = 0; t < row.size(); ++t) row[t] = sum * static_cast<double>(p.gpus[t]) / total;
  }
}

}  // namespace

Result<Matrix> SolveMaxMinFairness(const MaxMinProblem& p, bool aware) {
  DLSIM_RETURN_IF_ERROR(CheckProblem(p));
  const Matrix c = Coefficients(p, aware);
  DLSIM_ASSIGN_OR_RETURN(LpSolution level, BuildLp(p, c, -1).Maximize());
  // Phase two keeps the optimal minimum (less a relative 1e-9 for the solver's rounding).
  const double floor = std::max(0.0, level.objective * (1 - 1e-9));
  DLSIM_ASSIGN_OR_RETURN(LpSolution best, BuildLp(p, c, floor).Maximize());
  const size_t types = p.gpus.size();
  Matrix x(c.size(), std::vector<double>(types));
  for (size_t j = 0; j < x.size(); ++j)
    for (size_t t = 0; t < types; ++t) x[j][t] = std::clamp(best.x[j * types + t], 0.0, 1.0);
  if (!aware) SpreadByCapacity(p, x);
  return x;
}

std::vector<std::pair<int, int>> PackRound(const MaxMinProblem& p, const Matrix& x, const Matrix& received,
                                           const std::vector<int>& type_order) {
  const int n = static_cast<int>(p.throughput.size());
  std::vector<int64_t> left(p.gpus);
  std::vector<char> placed(n, 0);
  std::vector<std::pair<int, int>> out;
  for (int t : type_order) {
    std::vector<int> queue;
    for (int j = 0; j < n; ++j)
      if (p.throughput[j][t] > 0) queue.push_back(j);
    // Priority (then allocation) descending, then row (arrival) ascending: Gavel's stable sort.
    std::stable_sort(queue.begin(), queue.end(), [&](int a, int b) {
      const double pa = x[a][t] / received[a][t], pb = x[b][t] / received[b][t];
      return pa != pb ? pa > pb : x[a][t] > x[b][t];
    });
    for (int j : queue) {
      if (left[t] == 0) break;
      if (placed[j] || p.scale[j] > left[t]) continue;
      left[t] -= p.scale[j];
      placed[j] = 1;
      out.push_back({j, t});
    }
  }
  return out;
}

namespace {

class Gavel final : public SchedulingPolicy, public GpuAllocator {
 public:
  explicit Gavel(const GavelOptions& o) : o_(o), shuffle_(Rng(o.seed).Stream("cluster/gavel-types")) {}
  bool Preemptive() const override { return true; }
  Duration Round() const override { return o_.round; }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override {
    return {job.arrival.ToSeconds(), 0};
  }
  const GpuAllocator* allocator() const override { return this; }
  std::vector<AllocationTarget> Allocate(const AllocationView& v) const override;

 private:
  void Credit(const AllocationView& v) const;
  MaxMinProblem Problem(const AllocationView& v, std::vector<int>& rows) const;
  void Reallocate(const AllocationView& v, const MaxMinProblem& p, const std::vector<int>& rows) const;
  std::vector<int> TypeOrder(int types) const;

  GavelOptions o_;
  // The mechanism's history (policies/gavel.h: one instance per simulation).
  mutable Rng shuffle_;
  mutable std::map<int, std::vector<double>> received_;  // by job index: seconds per type since reset
  mutable std::map<int, std::vector<double>> x_;         // by job index: the current allocation
  mutable std::vector<int> last_active_;
  mutable std::optional<TimePoint> last_round_, last_reset_;
};

// Adds the time each running job held its type since the last round; drops finished jobs; seeds
// new ones with half a round on every type.
void Gavel::Credit(const AllocationView& v) const {
  const size_t types = v.cluster().gpu_types().size();
  std::map<int, std::vector<double>> kept;
  for (int j : v.active()) {
    auto it = received_.find(j);
    std::vector<double> r =
        it != received_.end() ? it->second : std::vector<double>(types, o_.round.ToSeconds() / 2);
    const JobProgress& p = v.progress(j);
    if (p.status == JobStatus::kRunning && !p.allocation.grants.empty() && last_round_) {
      const int t = v.cluster().nodes()[p.allocation.grants.front().node].gpu_type;
      r[t] += (v.now() - std::max(p.since, *last_round_)).ToSeconds();
    }
    kept.emplace(j, std::move(r));
  }
  received_ = std::move(kept);
}

MaxMinProblem Gavel::Problem(const AllocationView& v, std::vector<int>& rows) const {
  MaxMinProblem p;
  const int types = static_cast<int>(v.cluster().gpu_types().size());
  for (int t = 0; t < types; ++t) p.gpus.push_back(v.cluster().gpus_of_type(t));
  for (int j : v.active()) {
    const int scale = std::max(1, v.job(j).gpus);
    std::vector<double> tput(types);
    for (int t = 0; t < types; ++t) tput[t] = v.RateIf(j, t, scale);
    if (std::none_of(tput.begin(), tput.end(), [](double r) { return r > 0; })) continue;  // never fits
    rows.push_back(j);
    p.throughput.push_back(std::move(tput));
    p.scale.push_back(scale);
    p.weight.push_back(v.job(j).priority > 0 ? v.job(j).priority : 1.0);
  }
  return p;
}

// New X for the active jobs; resets the received times when the reset interval has passed.
void Gavel::Reallocate(const AllocationView& v, const MaxMinProblem& p, const std::vector<int>& rows) const {
  if (!last_reset_ || v.now() - *last_reset_ >= o_.reset_interval) {
    for (auto& [j, r] : received_) std::fill(r.begin(), r.end(), o_.round.ToSeconds() / 2);
    last_reset_ = v.now();
  }
  x_.clear();
  Result<Matrix> x = SolveMaxMinFairness(p, o_.heterogeneity_aware);
  // Valid input cannot make the LP fail (X = 0 is feasible, z is bounded); should GLPK fail, the
  // jobs keep X = 0 and share the GPUs in arrival order (the mechanism's work-conserving fill).
  if (!x.ok()) return;
  for (size_t i = 0; i < rows.size(); ++i) x_[rows[i]] = (*x)[i];
}

std::vector<int> Gavel::TypeOrder(int types) const {
  std::vector<int> order(types);
  std::iota(order.begin(), order.end(), 0);
  if (!o_.heterogeneity_aware)  // Fisher-Yates with our own RNG (Gavel shuffles for non-perf policies)
    for (int i = types - 1; i > 0; --i) std::swap(order[i], order[shuffle_.NextBelow(i + 1)]);
  return order;
}

std::vector<AllocationTarget> Gavel::Allocate(const AllocationView& v) const {
  if (last_round_ && v.now() < *last_round_) {  // a new run on the same object
    received_.clear(), x_.clear(), last_active_.clear();
    last_round_.reset(), last_reset_.reset();
  }
  Credit(v);
  std::vector<int> rows;
  const MaxMinProblem p = Problem(v, rows);
  last_round_ = v.now();
  if (rows.empty()) return {};
  if (v.active() != last_active_) Reallocate(v, p, rows);
  last_active_ = v.active();
  const int types = static_cast<int>(p.gpus.size());
  Matrix x(rows.size(), std::vector<double>(types, 0)), received(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    if (auto it = x_.find(rows[i]); it != x_.end()) x[i] = it->second;
    received[i] = received_.at(rows[i]);
  }
  std::vector<AllocationTarget> out;
  for (const auto& [i, t] : PackRound(p, x, received, TypeOrder(types)))
    out.push_back({rows[i], t, p.scale[i]});
  return out;
}

}  // namespace

std::unique_ptr<SchedulingPolicy> MakeGavelPolicy(const GavelOptions& options) {
  return std::make_unique<Gavel>(options);
}

void RegisterGavel(PolicyRegistry& reg) {
  reg.RegisterBuiltin(
      "gavel", "Gavel's heterogeneity-aware max-min fairness: an LP per round (GLPK), rounds of round_s",
      [](const PolicyParams& p) { return MakeGavelPolicy({.heterogeneity_aware = true, .round = p.round}); });
  reg.RegisterBuiltin("gavel-agnostic",
                      "Gavel's max-min fairness over equal time shares, blind to GPU types' speeds",
                      [](const PolicyParams& p) {
                        return MakeGavelPolicy({.heterogeneity_aware = false, .round = p.round});
                      });
}

}  // namespace dlsim::cluster
