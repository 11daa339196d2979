// Engine, capacity loaning (cluster/capacity.h): the lendable pool's nodes are lent to training
// while its demand leaves them idle and reclaimed when the demand rises. Each demand change is an
// event; it lends or reclaims nodes, then asks for a scheduling pass (and, for allocation
// policies, a round) at once, so the policy sees the new capacity immediately.
#include <algorithm>
#include <cmath>
#include <string>

#include "dlsim/cluster/elastic.h"
#include "engine.h"

namespace dlsim::cluster {

void Engine::InitCapacity() {
  if (!options_.capacity) return;
  const CapacityOptions& cap = *options_.capacity;
  loan_.in_pool.assign(options_.cluster.nodes().size(), 0);
  loan_.max_lendable = MaxLendable(cap);
  for (size_t i = 0; i < cap.pool.size(); ++i) {
    const int n = cap.pool[i];
    loan_.in_pool[n] = 1;
    state_.SetOnline(n, false);
    type_capacity_[options_.cluster.nodes()[n].gpu_type] -= int64_t{options_.cluster.nodes()[n].gpus} * 1000;
    // Whether a job can ever run is judged on the capacity the pool can always come back to.
    if (static_cast<int>(i) >= loan_.max_lendable) empty_.SetOnline(n, false);
  }
  ApplyDemand();
}

void Engine::ApplyDemand() {
  const CapacityOptions& cap = *options_.capacity;
  const int pool = static_cast<int>(cap.pool.size());
  const int want = cap.loan ? std::clamp(pool - DemandAt(cap, queue_.Now()), 0, pool) : 0;
  const int lent = static_cast<int>(loan_.lent.size());
  if (want > lent) Lend(want);
  if (want < lent) Reclaim(lent - want);
  RecordCapacity();
  round_due_ = true;
  RequestPass();
  if (CapacitySettled())
    return FreezeCapacity("the waiting jobs did not start when the pool lent all it ever lends");
  if (NoProgressOverAPeriod())
    return FreezeCapacity(
        "no job made progress over a whole period of the demand curve (its lent windows are shorter than the "
        "restart overhead and the work lost to reclaims); loaning stopped at " +
        std::to_string(queue_.Now().ToSeconds()) + " s");
  if (std::optional<TimePoint> next = NextDemandChange(cap, queue_.Now()))
    queue_.Schedule(*next, [this] { ApplyDemand(); });
}

// Lends offline pool nodes, in pool order, until `want` are lent.
void Engine::Lend(int want) {
  for (int n : options_.capacity->pool) {
    if (static_cast<int>(loan_.lent.size()) >= want) break;
    if (state_.online(n)) continue;
    state_.SetOnline(n, true);
    type_capacity_[options_.cluster.nodes()[n].gpu_type] += int64_t{options_.cluster.nodes()[n].gpus} * 1000;
    loan_.lent.push_back(n);
  }
}

std::vector<LentNode> Engine::LentNodes() const {
  std::vector<LentNode> out;
  std::vector<int> pos(options_.cluster.nodes().size(), -1);
  for (int n : loan_.lent) pos[n] = static_cast<int>(out.size()), out.push_back({n, {}});
  for (int j : running_) {
    for (const GpuGrant& g : prog_[j].allocation.grants) {
      if (pos[g.node] < 0 || g.milli == 0) continue;
      auto& jobs = out[pos[g.node]].jobs;
      if (jobs.empty() || jobs.back().first != j)
        jobs.push_back({j, 1});
      else
        ++jobs.back().second;
    }
  }
  return out;
}

// Takes `k` lent nodes back: the policy chooses them; the jobs on them are preempted or shrunk.
void Engine::Reclaim(int k) {
  std::vector<int> chosen = AskReclaim(LentNodes(), k);
  std::vector<char> gone(options_.cluster.nodes().size(), 0);
  std::vector<int> valid;
  for (int n : chosen)
    if (n >= 0 && n < static_cast<int>(gone.size()) && !gone[n] &&
        std::find(loan_.lent.begin(), loan_.lent.end(), n) != loan_.lent.end() &&
        static_cast<int>(valid.size()) < k)
      gone[n] = 1, valid.push_back(n);
  for (auto it = loan_.lent.rbegin(); it != loan_.lent.rend() && static_cast<int>(valid.size()) < k; ++it)
    if (!gone[*it]) gone[*it] = 1, valid.push_back(*it);
  std::vector<int> hit;
  for (int j : running_)
    for (const GpuGrant& g : prog_[j].allocation.grants)
      if (gone[g.node]) {
        hit.push_back(j);
        break;
      }
  std::sort(hit.begin(), hit.end());
  for (int j : hit) ReclaimJob(j, gone);
  for (int n : valid) {
    // Jobs left on a reclaimed node (none: ReclaimJob moved them all) would block SetOnline.
    state_.SetOnline(n, false);
    type_capacity_[options_.cluster.nodes()[n].gpu_type] -= int64_t{options_.cluster.nodes()[n].gpus} * 1000;
    loan_.lent.erase(std::find(loan_.lent.begin(), loan_.lent.end(), n));
    ++loan_.reclaimed_nodes;
  }
}

// A job holding GPUs on reclaimed nodes: an elastic job keeping at least min_gpus elsewhere
// continues there (a shrink, paying the restart overhead as its rescale cost); any other job is
// preempted back to waiting (losing the work since its last checkpoint, when checkpoints are set).
void Engine::ReclaimJob(int j, const std::vector<char>& gone) {
  Allocation keep;
  for (const GpuGrant& g : prog_[j].allocation.grants)
    if (!gone[g.node]) keep.grants.push_back(g);
  const int kept = static_cast<int>(keep.grants.size());
  const JobSpec& job = Job(j);
  const double done = job.work - RemainingAt(prog_[j], queue_.Now());
  const double old_rate = prog_[j].rate;
  const double ran_s = std::max(0.0, (queue_.Now() - prog_[j].progress_from).ToSeconds());
  const int held = static_cast<int>(prog_[j].held_milli / 1000);
  Stop(j, JobStatus::kWaiting);
  double rate = 0;
  if (kept > 0 && kept >= policy_.reclaim_rules().ShrinkFloor(job)) {
    JobSpec as = job;
    as.gpus = kept;
    as.gpu_milli = 1000;
    Result<double> r = options_.speeds
                           ? options_.speeds->Rate(as, state_.ShapeOf(keep), options_.cluster, done)
                           : Result<double>(job.speed.empty() ? 1.0 : 0.0);
    // A count the speed model has no entry for (a 3-GPU job of a throughput table): the old speed
    // pro rata, until the policy prices the job (an allocation policy decides at this instant).
    rate = r.ok() && *r > 0 ? *r * ElasticSpeedup(job, kept) : old_rate * kept / std::max(held, 1);
  }
  if (rate > 0) {
    Unwait(j);
    gpu_rate_[j] = rate;
    data_cores_[j] = 0;  // as any (re)start: local cores until the next data-worker plan
    const double capped = CappedRate(j, keep, rate);
    Start(j, std::move(keep), capped);
    ++prog_[j].resizes, ++resizes_, ++loan_.reclaim_shrinks;
  } else {
    ++prog_[j].preemptions, ++preemptions_, ++loan_.reclaim_preemptions;
    const double every = options_.capacity->checkpoint_interval.ToSeconds();
    if (every > 0) {
      const double lost_s = std::fmod(ran_s, every);
      prog_[j].remaining = std::min(job.work, prog_[j].remaining + lost_s * old_rate);
      loan_.reclaim_lost_gpu_s += lost_s * held;
    }
  }
}

// Undoes the AddWaiting of a Stop (the job restarts at once).
void Engine::Unwait(int j) {
  if (policy_.StaticKeys()) {
    auto it = waiting_static_.find(DemandClass(Job(j)));
    if (it != waiting_static_.end() && it->second.erase(KeyOf(j))) --waiting_static_count_;
  } else if (merge_waiting_) {
    waiting_sorted_.erase(KeyOf(j));
  }
}

// True when no further demand change can matter: every job has arrived, none runs, and either
// none waits or none started after the pool last lent all it ever lends.
bool Engine::CapacitySettled() {
  const bool arrived = prog_.empty() || prog_.back().status != JobStatus::kFuture;
  if (!arrived || !running_.empty()) return loan_.idle_at_max = false;
  const size_t waiting = policy_.StaticKeys() ? waiting_static_count_ : active_.size() - running_.size();
  if (waiting == 0) return true;
  // Settled when, since the last change that lent all the pool ever lends, no job started.
  const bool settled = loan_.idle_at_max && loan_.starts == loan_.starts_at_max;
  loan_.idle_at_max = static_cast<int>(loan_.lent.size()) >= loan_.max_lendable;
  loan_.starts_at_max = loan_.starts;
  return settled;
}

// A periodic curve that lets no job progress for a whole period (every job arrived) would loop
// for ever: the jobs start on lent nodes and are reclaimed before they gain anything.
bool Engine::NoProgressOverAPeriod() {
  const CapacityOptions& cap = *options_.capacity;
  const TimePoint now = queue_.Now();
  const bool arrived = prog_.empty() || prog_.back().status != JobStatus::kFuture;
  if (cap.period <= Duration::Zero() || !arrived) return false;
  if (loan_.progress_mark >= 0 && now - loan_.progress_check_at < cap.period) return false;
  double done = 0;
  for (size_t j = 0; j < prog_.size(); ++j) {
    const JobProgress& p = prog_[j];
    if (p.status == JobStatus::kDone)
      done += Job(static_cast<int>(j)).work;
    else if (p.status != JobStatus::kNeverFits)
      done += Job(static_cast<int>(j)).work - RemainingAt(p, now);
  }
  const bool stuck = loan_.progress_mark >= 0 && done <= loan_.progress_mark * (1 + 1e-12);
  loan_.progress_mark = done;
  loan_.progress_check_at = now;
  return stuck;
}

// No further demand change is applied; the jobs still waiting are reported with `why` when they
// never start.
void Engine::FreezeCapacity(const std::string& why) {
  loan_.capacity_frozen = true;
  for (int j : active_)
    if (prog_[j].status == JobStatus::kWaiting && reason_[j].empty()) reason_[j] = why;
  for (const auto& [demand, set] : waiting_static_)
    for (const QueueKey& k : set)
      if (reason_[std::get<3>(k)].empty()) reason_[std::get<3>(k)] = why;
}

void Engine::RecordCapacity() {
  const CapacityOptions& cap = *options_.capacity;
  int64_t online = 0;
  for (int64_t c : type_capacity_) online += c / 1000;
  int64_t pool_gpus = 0;
  for (int n : cap.pool) pool_gpus += options_.cluster.nodes()[n].gpus;
  const int pool = static_cast<int>(cap.pool.size());
  const int used = std::min(DemandAt(cap, queue_.Now()), pool);
  const double inference = pool > 0 ? static_cast<double>(pool_gpus) * used / pool : 0;
  if (!loan_.capacity_steps.empty() && loan_.capacity_steps.back().from == queue_.Now())
    loan_.capacity_steps.pop_back();
  loan_.capacity_steps.push_back({queue_.Now(), online, inference});
}

void Engine::CollectCapacity(ClusterSummary& s, int64_t total_gpus) const {
  const double end = s.makespan_s;
  s.available_gpu_s = static_cast<double>(total_gpus) * end;
  s.inference_gpu_s = 0;
  if (!loan_.capacity_steps.empty()) {
    s.available_gpu_s = 0;
    for (size_t i = 0; i < loan_.capacity_steps.size(); ++i) {
      const double from = std::min(loan_.capacity_steps[i].from.ToSeconds(), end);
      const double to = i + 1 < loan_.capacity_steps.size()
                            ? std::min(loan_.capacity_steps[i + 1].from.ToSeconds(), end)
                            : end;
      s.available_gpu_s += static_cast<double>(loan_.capacity_steps[i].online_gpus) * (to - from);
      s.inference_gpu_s += loan_.capacity_steps[i].inference_gpus * (to - from);
    }
  }
  const double busy_gpu_s = (busy_integral_ + bucket_) / 1000.0;
  s.usage = end > 0 && total_gpus > 0
                ? (busy_gpu_s + s.inference_gpu_s) / (static_cast<double>(total_gpus) * end)
                : 0;
  s.reclaimed_nodes = loan_.reclaimed_nodes;
  s.reclaim_preemptions = loan_.reclaim_preemptions;
  s.reclaim_shrinks = loan_.reclaim_shrinks;
  s.reclaim_lost_gpu_s = loan_.reclaim_lost_gpu_s;
}

}  // namespace dlsim::cluster
