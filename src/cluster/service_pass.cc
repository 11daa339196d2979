// The incremental preemptive pass of least-attained-service policies (las): the decisions of the
// full pass (engine.cc RankMerged's greedy walk over every active job) found from the changes
// alone. docs/cluster.md "Cost"; checked against the full pass in tests/cluster/service_pass_test.cc
// `IncrementalLasPassEqualsTheFullPass`.
#include <algorithm>

#include "engine.h"

namespace dlsim::cluster {

// The incremental pass needs every key to be attained service, one capacity to fill (one GPU
// type, no lendable pool changing it) and positive demands (the full pass never visits a job
// after the capacity is used up; a zero demand would fit there).
bool Engine::ServicePassApplies() const {
  const bool positive = std::all_of(options_.jobs.begin(), options_.jobs.end(),
                                    [](const JobSpec& job) { return DemandMilli(job) > 0; });
  return merge_waiting_ && policy_.KeyIsAttainedService() && type_capacity_.size() == 1 && positive &&
         !options_.capacity && !options_.full_passes;
}

// The full pass walks the active jobs in rank order with B, the capacity left: a job whose demand
// fits B is taken (B -= demand), the walk stops at B = 0, and the running jobs not taken are
// preempted. Write s = B - (the demand of the running jobs not yet walked). It starts at the free
// capacity and changes only when a waiting job is taken (s -= demand) or a running job is not
// (s += demand); with D(x) the demand of the running jobs ranked after x, a running job r is taken
// iff s + D(r) >= 0 and a waiting job w iff demand(w) <= s + D(w), and B at w is s + D(w). So
// while s >= 0 every running job is taken, and while s < 0 the next running job left out is
// ServiceTail::Preempted(-s): the walk visits the waiting jobs (as the full pass does) and only
// the worst-ranked running jobs, those the changes reach.
Engine::ServicePlan Engine::PlanByService(int64_t free) {
  ServiceTail tail(
      *service_, queue_.Now().ToSeconds(), [this](int j) { return KeyOf(j); },
      [this](int j) { return DemandMilli(Job(j)); });
  ServicePlan plan;
  int64_t s = free;
  // Running jobs left out before `bound` (all that remain when it is null).
  auto preempt_before = [&](const QueueKey* bound) {
    while (s < 0) {
      const auto [key, need] = tail.Preempted(-s);
      if (bound && key > *bound) return;
      plan.preempt.push_back(std::get<3>(key));
      s += need;
    }
  };
  for (const QueueKey& w : waiting_sorted_) {
    preempt_before(&w);
    const int j = std::get<3>(w);
    const int64_t need = DemandMilli(Job(j));
    const int64_t after = tail.DemandAfter(w, need - s + 1);  // exact when <= need - s
    if (after >= need - s) {
      plan.start.push_back(j);
      s -= need;
    }
    if (s + after == 0) break;  // B = 0 after w: nothing later is taken
  }
  preempt_before(nullptr);
  return plan;
}

// Applies the plan as PassPreemptive applies the full pass's: preemptions in the order of its
// backward walk over running_ (so running_ ends in the same order), then starts in rank order.
bool Engine::PassByService() {
  const int64_t free = type_capacity_[0] - running_milli_;
  if (free < 0) return false;
  ServicePlan plan = PlanByService(free);
  std::sort(plan.preempt.begin(), plan.preempt.end(),
            [&](int a, int b) { return running_pos_[a] > running_pos_[b]; });
  for (int j : plan.preempt) {
    Stop(j, JobStatus::kWaiting);
    ++prog_[j].preemptions;
    ++preemptions_;
  }
  for (int j : plan.start) {
    if (!error_.ok()) break;
    const QueueKey key = KeyOf(j);
    if (TryStart(j)) waiting_sorted_.erase(key);
  }
  return true;
}

}  // namespace dlsim::cluster
