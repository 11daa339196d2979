// The EasyScale policies; see the header.
#include "dlsim/cluster/policies/easyscale.h"

#include <algorithm>

#include "round_allocator.h"

namespace dlsim::cluster {
namespace {

// One job's plan in a round: its ESTs, its per-EST step time per GPU type (0: cannot run there),
// its GPUs per type so far.
struct Plan {
  int job = 0;
  int threads = 0;
  double reference = 1;
  std::vector<double> step_s;
  std::vector<int> count;
  int total() const {
    int n = 0;
    for (int c : count) n += c;
    return n;
  }
};

double RateOf(const Plan& p, const std::vector<int>& count, double switch_s) {
  std::vector<double> gpus;
  for (size_t t = 0; t < count.size(); ++t) gpus.insert(gpus.end(), count[t], p.step_s[t]);
  if (gpus.empty() || p.threads <= 0) return 0;
  const double step = StepTime(AssignThreads(p.threads, gpus, switch_s), gpus, switch_s);
  return step > 0 ? p.threads / step : 0;
}

class EasyScalePolicy final : public RoundAllocator, public ReclaimRules {
 public:
  EasyScalePolicy(const PolicyParams& p, EasyScaleMode mode)
      : RoundAllocator(p.round),
        switch_s_(EasyScaleParams::From(p.own).switch_s),
        backfill_(p.backfill),
        mode_(mode) {}
  const ReclaimRules& reclaim_rules() const override { return *this; }
  std::vector<AllocationTarget> Allocate(const AllocationView& view) const override;
  // A job keeps running on whatever GPUs a reclaim leaves it (its ESTs re-packed at the next
  // decision); the fixed baseline is preempted.
  int ShrinkFloor(const JobSpec&) const override {
    return mode_ == EasyScaleMode::kFixed ? kMaxJobGpus + 1 : 1;
  }

 private:
  Plan PlanOf(const AllocationView& view, int j) const;
  void AdmitFixed(const AllocationView& view, std::vector<Plan>& plans, std::vector<int64_t>& budget) const;
  void HandOut(std::vector<Plan>& plans, std::vector<int64_t>& budget) const;
  double switch_s_;
  bool backfill_;
  EasyScaleMode mode_;
};

Plan EasyScalePolicy::PlanOf(const AllocationView& view, int j) const {
  const int types = static_cast<int>(view.cluster().gpu_types().size());
  const JobSpec& job = view.job(j);
  Plan p{j, std::max(job.gpus, 1), view.progress(j).reference_rate, std::vector<double>(types, 0.0),
         std::vector<int>(types, 0)};
  for (int t = 0; t < types; ++t) {
    const bool allowed =
        job.gpu_types.empty() || std::count(job.gpu_types.begin(), job.gpu_types.end(), t) > 0;
    const double r = allowed ? view.RateIf(j, t, 1) : 0;
    p.step_s[t] = r > 0 ? 1.0 / r : 0;
  }
  const JobProgress& prog = view.progress(j);
  if (prog.status == JobStatus::kRunning)
    for (const GpuGrant& g : prog.allocation.grants)
      if (g.milli == 1000) ++p.count[view.cluster().nodes()[g.node].gpu_type];
  return p;
}

std::vector<AllocationTarget> EasyScalePolicy::Allocate(const AllocationView& view) const {
  const int types = static_cast<int>(view.cluster().gpu_types().size());
  std::vector<int64_t> budget(types);
  for (int t = 0; t < types; ++t) budget[t] = view.available_gpus(t);
  std::vector<Plan> plans;
  for (int j : view.active()) {  // running jobs keep their GPUs while the capacity holds them
    Plan p = PlanOf(view, j);
    bool fits = true;
    for (int t = 0; t < types; ++t)
      fits = fits && p.count[t] <= budget[t] && (p.count[t] == 0 || p.step_s[t] > 0);
    if (!fits) std::fill(p.count.begin(), p.count.end(), 0);
    for (int t = 0; t < types; ++t) budget[t] -= p.count[t];
    plans.push_back(std::move(p));
  }
  if (mode_ == EasyScaleMode::kFixed)
    AdmitFixed(view, plans, budget);
  else
    HandOut(plans, budget);
  std::vector<AllocationTarget> targets;
  for (const Plan& p : plans) {
    if (p.total() == 0) continue;
    AllocationTarget t(p.job, 0, p.total());
    t.rate = RateOf(p, p.count, switch_s_);
    for (int g = 0; g < types; ++g)
      if (p.count[g] > 0) t.parts.push_back({g, p.count[g]});
    t.gpu_type = t.parts.front().first;
    targets.push_back(std::move(t));
  }
  return targets;
}

// The baseline: a waiting job starts, in arrival order, on exactly its GPUs of one type (the
// fastest with that many free).
void EasyScalePolicy::AdmitFixed(const AllocationView& view, std::vector<Plan>& plans,
                                 std::vector<int64_t>& budget) const {
  for (Plan& p : plans) {
    if (p.total() > 0 || view.progress(p.job).status != JobStatus::kWaiting) continue;
    int best = -1;
    for (int t = 0; t < static_cast<int>(budget.size()); ++t)
      if (p.step_s[t] > 0 && budget[t] >= p.threads && (best < 0 || p.step_s[t] < p.step_s[best])) best = t;
    if (best < 0) {
      if (!backfill_) return;
      continue;
    }
    p.count[best] = p.threads;
    budget[best] -= p.threads;
  }
}

// The inter-job scheduler: idle GPUs to the largest relative throughput gain per GPU. A step of
// m GPUs of one type is weighed (gain / m), since with a fixed number of ESTs one more GPU may not
// help where two do (3 GPUs for 4 ESTs are no faster than 2).
void EasyScalePolicy::HandOut(std::vector<Plan>& plans, std::vector<int64_t>& budget) const {
  std::vector<double> rate(plans.size());
  for (size_t i = 0; i < plans.size(); ++i) rate[i] = RateOf(plans[i], plans[i].count, switch_s_);
  while (true) {
    int best_job = -1, best_type = -1, best_m = 0;
    double best_gain = 1e-12, best_rate = 0;
    for (size_t i = 0; i < plans.size(); ++i) {
      const Plan& p = plans[i];
      for (int t = 0; t < static_cast<int>(budget.size()); ++t) {
        if (p.step_s[t] <= 0) continue;
        if (mode_ == EasyScaleMode::kHomogeneous && p.total() > 0 && p.count[t] == 0) continue;
        std::vector<int> more = p.count;
        for (int m = 1; m <= std::min<int64_t>(budget[t], p.threads - p.total()); ++m) {
          ++more[t];
          const double r = RateOf(p, more, switch_s_);
          const double gain = (r - rate[i]) / std::max(p.reference, 1e-12) / m;
          if (gain > best_gain)
            best_gain = gain, best_job = static_cast<int>(i), best_type = t, best_m = m, best_rate = r;
        }
      }
    }
    if (best_job < 0) return;
    plans[best_job].count[best_type] += best_m;
    budget[best_type] -= best_m;
    rate[best_job] = best_rate;
  }
}

}  // namespace

std::vector<int> AssignThreads(int threads, const std::vector<double>& step_s, double switch_s) {
  std::vector<int> n(step_s.size(), 0);
  if (step_s.empty()) return n;
  for (int e = 0; e < threads; ++e) {
    size_t best = 0;
    double best_t = 0;
    for (size_t i = 0; i < step_s.size(); ++i) {
      const double t = (n[i] + 1) * step_s[i] + n[i] * switch_s;
      if (i == 0 || t < best_t) best = i, best_t = t;
    }
    ++n[best];
  }
  return n;
}

double StepTime(const std::vector<int>& counts, const std::vector<double>& step_s, double switch_s) {
  double t = 0;
  for (size_t i = 0; i < counts.size() && i < step_s.size(); ++i)
    if (counts[i] > 0) t = std::max(t, counts[i] * step_s[i] + (counts[i] - 1) * switch_s);
  return t;
}

std::unique_ptr<SchedulingPolicy> MakeEasyScalePolicy(const PolicyParams& params, EasyScaleMode mode) {
  return std::make_unique<EasyScalePolicy>(params, mode);
}

const ParamSpec kSwitch = NumberKey("switch_s", 0.005, 0, 1e4,
                                    "easyscale: seconds per step each extra EasyScaleThread on a GPU costs");

std::vector<ParamSpec> EasyScaleParams::Keys() { return {kSwitch}; }

EasyScaleParams EasyScaleParams::From(const ParamSet& set) { return {.switch_s = set.Number(kSwitch)}; }

void RegisterEasyScale(PolicyRegistry& reg) {
  reg.RegisterBuiltin(
      "easyscale",
      "EasyScale (SC'23): fixed EasyScaleThreads on any mix of GPU types, idle GPUs to the "
      "largest throughput gain",
      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kHeterogeneous); },
      EasyScaleParams::Keys());
  reg.RegisterBuiltin(
      "easyscale-homogeneous", "EasyScale with one GPU type per job (ablation)",
      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kHomogeneous); },
      EasyScaleParams::Keys());
  reg.RegisterBuiltin(
      "easyscale-fixed", "EasyScale's baseline: a job runs only on exactly its GPUs of one type, FIFO",
      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kFixed); },
      EasyScaleParams::Keys());
}

}  // namespace dlsim::cluster
