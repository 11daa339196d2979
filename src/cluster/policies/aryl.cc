// The Aryl policy; see the header.
#include "dlsim/cluster/policies/aryl.h"

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>

#include "dlsim/core/rng.h"
#include "round_allocator.h"

namespace dlsim::cluster {
namespace {

int TypeOf(const AllocationView& view, const JobProgress& p) {
  return view.cluster().nodes()[p.allocation.grants.front().node].gpu_type;
}

int HeldGpus(const JobProgress& p) {
  return p.status == JobStatus::kRunning ? static_cast<int>(p.held_milli / 1000) : 0;
}

// The type a waiting job's base demand fits best: allowed, runnable there, most GPUs left.
int PickType(const AllocationView& view, int j, int base, const std::vector<int64_t>& budget) {
  const JobSpec& job = view.job(j);
  int best = -1;
  for (int t = 0; t < static_cast<int>(budget.size()); ++t) {
    const bool allowed =
        job.gpu_types.empty() || std::count(job.gpu_types.begin(), job.gpu_types.end(), t) > 0;
    if (!allowed || budget[t] < base || view.RateIf(j, t, base) <= 0) continue;
    if (best < 0 || budget[t] > budget[best]) best = t;
  }
  return best;
}

class ArylPolicy final : public RoundAllocator, public ReclaimRules {
 public:
  explicit ArylPolicy(const PolicyParams& p) : ArylPolicy(p, ArylParams::From(p.own)) {}
  ArylPolicy(const PolicyParams& p, const ArylParams& own)
      : RoundAllocator(p.round),
        elastic_(own.elastic),
        random_(own.reclaim == "random"),
        backfill_(p.backfill) {}
  const ReclaimRules& reclaim_rules() const override { return *this; }
  std::vector<AllocationTarget> Allocate(const AllocationView& view) const override;
  std::vector<int> ChooseReclaim(const AllocationView& view, const std::vector<LentNode>& lent,
                                 int k) const override;

 private:
  void AddExtras(const AllocationView& view, std::vector<AllocationTarget>& targets,
                 std::vector<int64_t>& budget) const;
  bool elastic_, random_, backfill_;
};

std::vector<AllocationTarget> ArylPolicy::Allocate(const AllocationView& view) const {
  const int types = static_cast<int>(view.cluster().gpu_types().size());
  std::vector<int64_t> budget(types);
  for (int t = 0; t < types; ++t) budget[t] = view.available_gpus(t);
  std::vector<AllocationTarget> targets;
  for (int j : view.active()) {  // 1. running jobs keep their base
    const JobProgress& p = view.progress(j);
    if (p.status != JobStatus::kRunning || p.allocation.grants.empty()) continue;
    const int type = TypeOf(view, p);
    const int base = elastic_ ? std::min(MinGpus(view.job(j)), HeldGpus(p)) : HeldGpus(p);
    targets.push_back({j, type, base});
    budget[type] -= base;
  }
  for (int j : view.active()) {  // 2. waiting jobs' base demands, in arrival order
    const JobProgress& p = view.progress(j);
    if (p.status != JobStatus::kWaiting) continue;
    const int base = elastic_ ? MinGpus(view.job(j)) : view.job(j).gpus;
    const bool room = *std::max_element(budget.begin(), budget.end()) >= base;
    const int type = base > 0 && room ? PickType(view, j, base, budget) : -1;
    if (type < 0) {
      if (!backfill_) break;
      continue;
    }
    targets.push_back({j, type, base});
    budget[type] -= base;
  }
  if (elastic_) AddExtras(view, targets, budget);
  return targets;
}

// 3. the GPUs left on each type, to that type's elastic jobs by the knapsack.
void ArylPolicy::AddExtras(const AllocationView& view, std::vector<AllocationTarget>& targets,
                           std::vector<int64_t>& budget) const {
  for (int t = 0; t < static_cast<int>(budget.size()); ++t) {
    if (budget[t] <= 0) continue;
    std::vector<size_t> who;
    std::vector<std::vector<double>> values;
    for (size_t i = 0; i < targets.size(); ++i) {
      const int j = targets[i].job;
      const JobSpec& job = view.job(j);
      if (targets[i].gpu_type != t || !IsElastic(job) || MaxGpus(job) <= targets[i].gpus) continue;
      const int base = targets[i].gpus;
      const double left = RemainingAt(view.progress(j), view.now());
      const double r0 = view.RateIf(j, t, base);
      if (!(r0 > 0)) continue;
      std::vector<double> v(1, 0.0);
      for (int k = 1; k <= std::min<int64_t>(MaxGpus(job) - base, budget[t]); ++k) {
        const double r = view.RateIf(j, t, base + k);
        v.push_back(r > 0 ? left / r0 - left / r : -1.0);  // -1: never chosen over 0
      }
      who.push_back(i);
      values.push_back(std::move(v));
    }
    const std::vector<int> extra = SolveMultipleChoiceKnapsack(values, static_cast<int>(budget[t]));
    for (size_t w = 0; w < who.size(); ++w) targets[who[w]].gpus += extra[w], budget[t] -= extra[w];
  }
}

std::vector<int> ArylPolicy::ChooseReclaim(const AllocationView& view, const std::vector<LentNode>& lent,
                                           int k) const {
  if (random_) {
    Rng rng = Rng(static_cast<uint64_t>(view.now().ToNanos())).Stream("aryl/reclaim");
    std::vector<int> nodes;
    for (const LentNode& n : lent) nodes.push_back(n.node);
    for (int i = 0; i < k && i < static_cast<int>(nodes.size()); ++i)
      std::swap(nodes[i], nodes[i + rng.NextBelow(nodes.size() - i)]);
    nodes.resize(std::min<size_t>(nodes.size(), std::max(k, 0)));
    return nodes;
  }
  std::map<int, ReclaimJob> jobs;
  for (const LentNode& n : lent)
    for (const auto& [j, g] : n.jobs) {
      const JobProgress& p = view.progress(j);
      const JobSpec& job = view.job(j);
      jobs[j] = {HeldGpus(p), IsElastic(job) ? MinGpus(job) : HeldGpus(p), IsElastic(job)};
    }
  return LeastCostReclaim(lent, jobs, k);
}

}  // namespace

std::vector<int> SolveMultipleChoiceKnapsack(const std::vector<std::vector<double>>& values, int capacity) {
  const size_t n = values.size();
  int64_t most = 0;  // GPUs every job's largest option together would take
  for (const auto& v : values) most += v.empty() ? 0 : static_cast<int64_t>(v.size()) - 1;
  capacity = static_cast<int>(std::clamp<int64_t>(capacity, 0, most));
  const double ninf = -std::numeric_limits<double>::infinity();
  // best[j][c]: the most value of jobs j.. within c GPUs; pick[j][c]: job j's k there.
  std::vector<std::vector<double>> best(n + 1, std::vector<double>(capacity + 1, 0.0));
  std::vector<std::vector<int>> pick(n, std::vector<int>(capacity + 1, 0));
  for (size_t j = n; j-- > 0;) {
    for (int c = 0; c <= capacity; ++c) {
      double v = ninf;
      for (int k = 0; k < static_cast<int>(values[j].size()) && k <= c; ++k) {
        const double here = (k == 0 ? 0.0 : values[j][k]) + best[j + 1][c - k];
        if (here > v + 1e-12) v = here, pick[j][c] = k;
      }
      best[j][c] = v;
    }
  }
  std::vector<int> out(n, 0);
  int left = capacity;
  for (size_t j = 0; j < n; ++j) out[j] = pick[j][left], left -= out[j];
  return out;
}

std::vector<int> LeastCostReclaim(const std::vector<LentNode>& lent, const std::map<int, ReclaimJob>& jobs,
                                  int k) {
  std::map<int, int> left;  // GPUs each job still holds after the picks so far
  std::map<int, bool> preempted;
  for (const auto& [j, r] : jobs) left[j] = r.held;
  std::vector<char> taken(lent.size(), 0);
  std::vector<int> out;
  while (static_cast<int>(out.size()) < k) {
    int best = -1;
    std::tuple<int, int, int, int> best_cost;
    for (size_t i = 0; i < lent.size(); ++i) {
      if (taken[i]) continue;
      int preempts = 0, shrunk = 0, used = 0;
      for (const auto& [j, g] : lent[i].jobs) {
        auto it = jobs.find(j);
        if (it == jobs.end() || preempted[j]) continue;
        used += g;
        const bool shrinks = it->second.elastic && left[j] - g >= std::max(1, it->second.min_gpus);
        shrinks ? shrunk += g : ++preempts;
      }
      const auto cost = std::make_tuple(preempts, shrunk, used, lent[i].node);
      if (best < 0 || cost < best_cost) best = static_cast<int>(i), best_cost = cost;
    }
    if (best < 0) break;
    taken[best] = 1;
    out.push_back(lent[best].node);
    for (const auto& [j, g] : lent[best].jobs) {
      auto it = jobs.find(j);
      if (it == jobs.end() || preempted[j]) continue;
      if (it->second.elastic && left[j] - g >= std::max(1, it->second.min_gpus))
        left[j] -= g;
      else
        preempted[j] = true;
    }
  }
  return out;
}

std::unique_ptr<SchedulingPolicy> MakeArylPolicy(const PolicyParams& params) {
  return std::make_unique<ArylPolicy>(params);
}

const ParamSpec kElastic =
    FlagKey("elastic", true, "aryl: elastic extras by knapsack; false: base demands only");
const ParamSpec kReclaim = TextKey("reclaim", "least-cost", {"least-cost", "random"},
                                   "aryl: which lent nodes to give back when the pool reclaims");

std::vector<ParamSpec> ArylParams::Keys() { return {kElastic, kReclaim}; }

ArylParams ArylParams::From(const ParamSet& set) {
  return {.elastic = set.Flag(kElastic), .reclaim = set.Text(kReclaim)};
}

void RegisterAryl(PolicyRegistry& reg) {
  reg.RegisterBuiltin(
      "aryl",
      "Aryl/Lyra (EuroSys'23): base demands FIFO, elastic extras by knapsack, reclaim of lent "
      "nodes by least preemption cost (keys elastic, reclaim)",
      MakeArylPolicy, ArylParams::Keys());
}

}  // namespace dlsim::cluster
