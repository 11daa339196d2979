// Engine::PassAllocate: the round of an allocation policy (Gavel, Pollux): ask for every active
// job's target GPU type and count, resize or preempt the running jobs whose target changed, place
// the rest in rank order.
#include <algorithm>

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

 private:
  const Engine& e_;
  std::vector<int> active_;  // job indices are arrival ranks, so sorted = arrival order
};

// The rate on the packed shape: full nodes of the type's largest node, then the remainder.
double Engine::RateIf(int j, int gpu_type, int gpus) const {
  if (gpu_type < 0 || gpu_type >= static_cast<int>(max_gpus_per_node_.size()) || gpus <= 0) return 0;
  const int per_node = max_gpus_per_node_[gpu_type];
  if (per_node <= 0 || int64_t{gpus} * 1000 > type_capacity_[gpu_type]) return 0;
  PlacementShape shape{gpu_type, {}};
  for (int left = gpus; left > 0; left -= per_node) shape.gpus_per_node.push_back(std::min(left, per_node));
  JobSpec as = Job(j);
  as.gpus = gpus;
  const double done = as.work - RemainingAt(prog_[j], queue_.Now());
  Result<double> r = options_.speeds ? options_.speeds->Rate(as, shape, options_.cluster, done)
                                     : Result<double>(as.speed.empty() ? 1.0 : 0.0);
  return r.ok() && *r > 0 ? *r : 0;
}

void Engine::PassAllocate() {
  if (active_.empty()) return;
  ApplyTargets(policy_.Allocate(View(*this)));
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
    const JobProgress& p = prog_[j];
    const int type = options_.cluster.nodes()[p.allocation.grants.front().node].gpu_type;
    const bool same = t && t->gpus * int64_t{1000} == p.held_milli && t->gpu_type == type;
    if (same) {
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
  const double rate = CappedRate(j, p.allocation, *r);
  if (rate == p.rate) return;
  p.remaining = remaining;
  p.progress_from = from;
  p.rate = rate;
  queue_.Cancel(finish_event_[j]);
  finish_event_[j] = queue_.Schedule(from + Seconds(remaining / p.rate), [this, j] {
    Stop(j, JobStatus::kDone);
    RequestPass();
  });
}

}  // namespace dlsim::cluster
