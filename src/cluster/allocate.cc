// Engine::PassAllocate: the round of an allocation policy (Gavel, Pollux): ask for every active
// job's target GPU type and count, resize or preempt the running jobs whose target changed, place
// the rest in rank order.
#include <algorithm>
#include <map>

#include "dlsim/cluster/elastic.h"
#include "engine.h"

namespace dlsim::cluster {

class Engine::View final : public AllocationView {
 public:
  explicit View(const Engine& e) : e_(e), active_(e.active_) { std::sort(active_.begin(), active_.end()); }
  TimePoint now() const override { return e_.queue_.Now(); }
  const ClusterSpec& cluster() const override { return e_.options_.cluster; }
  const std::vector<int>& active() const override { return active_; }
  const JobSpec& job(int j) const override { return e_.Job(j); }
  const JobProgress& progress(int j) const override { return e_.prog_[j]; }
  double RateIf(int j, int gpu_type, int gpus) const override { return e_.RateIf(j, gpu_type, gpus); }
  int64_t available_gpus(int gpu_type) const override { return e_.type_capacity_.at(gpu_type) / 1000; }

 private:
  const Engine& e_;
  std::vector<int> active_;  // job indices are arrival ranks, so sorted = arrival order
};

// The rate on the packed shape: full nodes of the type's largest node, then the remainder.
double Engine::RateIf(int j, int gpu_type, int gpus) const {
  if (gpu_type < 0 || gpu_type >= static_cast<int>(max_gpus_per_node_.size()) || gpus <= 0) return 0;
  const int per_node = max_gpus_per_node_[gpu_type];
  if (per_node <= 0 || int64_t{gpus} * 1000 > type_capacity_[gpu_type]) return 0;
  if (Job(j).speed.empty()) return ElasticSpeedup(Job(j), gpus);  // a duration job: no model to ask
  PlacementShape shape{gpu_type, {}};
  for (int left = gpus; left > 0; left -= per_node) shape.gpus_per_node.push_back(std::min(left, per_node));
  JobSpec as = Job(j);
  as.gpus = gpus;
  const double done = as.work - RemainingAt(prog_[j], queue_.Now());
  Result<double> r = options_.speeds ? options_.speeds->Rate(as, shape, options_.cluster, done)
                                     : Result<double>(as.speed.empty() ? 1.0 : 0.0);
  return r.ok() && *r > 0 ? *r * ElasticSpeedup(Job(j), gpus) : 0;
}

std::vector<int> Engine::AskReclaim(const std::vector<LentNode>& lent, int k) const {
  return policy_.reclaim_rules().ChooseReclaim(View(*this), lent, k);
}

void Engine::PassAllocate() {
  if (active_.empty()) return;
  ApplyTargets(policy_.allocator()->Allocate(View(*this)));
}

void Engine::ApplyTargets(std::vector<AllocationTarget> targets) {
  std::vector<AllocationTarget> by_job(targets);
  std::sort(by_job.begin(), by_job.end(), [](const auto& a, const auto& b) { return a.job < b.job; });
  auto target_of = [&](int j) -> const AllocationTarget* {
    auto it =
        std::lower_bound(by_job.begin(), by_job.end(), j, [](const auto& t, int v) { return t.job < v; });
    return it != by_job.end() && it->job == j ? &*it : nullptr;
  };
  for (size_t i = running_.size(); i-- > 0;) {  // Stop() swaps the last running job into i
    const int j = running_[i];
    const AllocationTarget* t = target_of(j);
    if (t && SameTarget(j, *t)) {
      if (t->rate > 0)
        gpu_rate_[j] = t->rate, RerateTo(j, CappedRate(j, prog_[j].allocation, t->rate));
      else
        Rerate(j);
      continue;
    }
    Stop(j, JobStatus::kWaiting);
    if (t && t->gpus > 0)
      ++prog_[j].resizes, ++resizes_;
    else
      ++prog_[j].preemptions, ++preemptions_;
  }
  for (const AllocationTarget& t : targets) {
    if (t.gpus <= 0 || t.job < 0 || t.job >= static_cast<int>(prog_.size()) || !error_.ok()) continue;
    if (prog_[t.job].status != JobStatus::kWaiting) continue;
    if (!t.parts.empty() || t.rate > 0) {
      StartParts(t.job, t.parts.empty() ? std::vector<std::pair<int, int>>{{t.gpu_type, t.gpus}} : t.parts,
                 t.rate);
      continue;
    }
    JobSpec as = Job(t.job);
    as.gpus = t.gpus;
    as.gpu_milli = 1000;
    as.gpu_types = {t.gpu_type};
    TryStartAs(t.job, as);
  }
}

// A running job keeps its GPUs; its speed may have changed with its progress (Pollux's goodput
// per epoch): settle its work to now and continue at the speed its shape has now.
void Engine::Rerate(int j) {
  JobProgress& p = prog_[j];
  const JobSpec& job = Job(j);
  if (!options_.speeds || job.speed.empty()) return;
  const TimePoint from = std::max(queue_.Now(), p.progress_from);
  const double remaining = RemainingAt(p, from);
  Result<double> r =
      options_.speeds->Rate(job, state_.ShapeOf(p.allocation), options_.cluster, job.work - remaining);
  if (!r.ok() || !(*r > 0)) return;
  gpu_rate_[j] = *r;
  RerateTo(j, CappedRate(j, p.allocation, *r));
}

// Settles a running job's work to now and continues at `rate`.
void Engine::RerateTo(int j, double rate) {
  JobProgress& p = prog_[j];
  if (rate == p.rate || !(rate > 0)) return;
  const TimePoint from = std::max(queue_.Now(), p.progress_from);
  const double remaining = RemainingAt(p, from);
  p.remaining = remaining;
  p.progress_from = from;
  p.rate = rate;
  queue_.Cancel(finish_event_[j]);
  finish_event_[j] = queue_.Schedule(from + Seconds(remaining / p.rate), [this, j] {
    Stop(j, JobStatus::kDone);
    RequestPass();
  });
}

// Whether running job j already holds what `t` asks for (the same GPUs per type).
bool Engine::SameTarget(int j, const AllocationTarget& t) const {
  const JobProgress& p = prog_[j];
  if (p.allocation.grants.empty() || p.held_milli % 1000 != 0) return false;
  const auto& nodes = options_.cluster.nodes();
  if (t.parts.empty()) {  // one type: no per-type tally needed
    if (p.held_milli != int64_t{t.gpus} * 1000) return false;
    for (const GpuGrant& g : p.allocation.grants)
      if (nodes[g.node].gpu_type != t.gpu_type) return false;
    return true;
  }
  std::map<int, int> held, want;
  for (const GpuGrant& g : p.allocation.grants)
    if (g.milli == 1000) ++held[nodes[g.node].gpu_type];
  for (const auto& [type, n] : t.parts)
    if (n > 0) want[type] += n;
  return held == want;
}

// Places each (type, count) part of a mixed target and starts job j on their union at `rate`
// (0: the speed of the placed shape). False, with nothing changed, when a part does not fit.
bool Engine::StartParts(int j, const std::vector<std::pair<int, int>>& parts, double rate) {
  std::vector<std::pair<JobSpec, Allocation>> placed;
  bool ok = true;
  int total = 0;
  for (const auto& [type, n] : parts) {
    if (n <= 0) continue;
    JobSpec as = Job(j);
    as.gpus = n, as.gpu_milli = 1000, as.gpu_types = {type};
    std::optional<Allocation> a = placement_.Place(state_, as, rng_);
    if (!a) {
      ok = false;
      break;
    }
    state_.Allocate(as, *a);
    placed.push_back({std::move(as), std::move(*a)});
    total += n;
  }
  Allocation all;
  for (auto& [as, a] : placed) {
    state_.Release(as, a);
    all.grants.insert(all.grants.end(), a.grants.begin(), a.grants.end());
  }
  if (!ok || total == 0) return false;
  std::sort(all.grants.begin(), all.grants.end(), [](const GpuGrant& a, const GpuGrant& b) {
    return a.node != b.node ? a.node < b.node : a.gpu < b.gpu;
  });
  if (!(rate > 0)) {
    JobSpec as = Job(j);
    as.gpus = total;
    const double done = as.work - prog_[j].remaining;
    Result<double> r = options_.speeds
                           ? options_.speeds->Rate(as, state_.ShapeOf(all), options_.cluster, done)
                           : Result<double>(as.speed.empty() ? 1.0 : 0.0);
    rate = r.ok() ? *r * ElasticSpeedup(Job(j), total) : 0;
  }
  if (!(rate > 0)) return false;
  gpu_rate_[j] = rate;
  data_cores_[j] = 0;
  const double capped = CappedRate(j, all, rate);
  Start(j, std::move(all), capped);
  return true;
}

}  // namespace dlsim::cluster
