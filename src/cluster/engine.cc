#include "engine.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <numeric>

#include "dlsim/cluster/elastic.h"
#include "dlsim/core/cancel.h"

namespace dlsim::cluster {

Engine::Engine(const ClusterOptions& options, const SchedulingPolicy& policy,
               const PlacementPolicy& placement, report::Sink* sink)
    : options_(options),
      policy_(policy),
      placement_(placement),
      sink_(sink),
      state_(options.cluster),
      empty_(options.cluster),
      rng_(Rng(options.seed).Stream("cluster/placement")) {
  order_.resize(options.jobs.size());
  std::iota(order_.begin(), order_.end(), size_t{0});
  std::stable_sort(order_.begin(), order_.end(), [&](size_t a, size_t b) {
    const JobSpec& x = options.jobs[a];
    const JobSpec& y = options.jobs[b];
    return x.arrival != y.arrival ? x.arrival < y.arrival : x.id < y.id;
  });
  const size_t n = order_.size();
  prog_.resize(n);
  finish_event_.resize(n);
  reason_.resize(n);
  active_pos_.assign(n, -1);
  running_pos_.assign(n, -1);
  sample_interval_ = options.sample_interval;
  next_sample_ = TimePoint::Start() + sample_interval_;
  desired_.assign(n, 0);
  in_rank_.assign(n, 0);
  gpu_rate_.assign(n, 0);
  data_cores_.assign(n, 0);
  round_ = policy.Round() > Duration::Zero() || !options.policy_params.rounds_only
               ? policy.Round()
               : options.policy_params.round;
  merge_waiting_ = policy.Preemptive() && policy.WaitingKeysStatic() && policy.allocator() == nullptr;
  max_gpus_per_node_.assign(options.cluster.gpu_types().size(), 0);
  for (const ClusterNode& node : options.cluster.nodes())
    max_gpus_per_node_[node.gpu_type] = std::max(max_gpus_per_node_[node.gpu_type], node.gpus);
  for (size_t t = 0; t < options.cluster.gpu_types().size(); ++t)
    type_capacity_.push_back(options.cluster.gpus_of_type(static_cast<int>(t)) * 1000);
  if (ServicePassApplies()) service_.emplace(n);
}

Engine::QueueKey Engine::KeyOf(int j) const {
  return {policy_.Key(Job(j), prog_[j], queue_.Now()), Job(j).arrival.ToNanos(), Job(j).id, j};
}

Result<ClusterResult> Engine::Run() {
  InitCapacity();
  ScheduleArrival(0);
  if (!queue_.RunCancellable([this] { return error_.ok(); })) return CancelledError();
  DLSIM_RETURN_IF_ERROR(error_);
  Account();
  return Collect();
}

void Engine::ScheduleArrival(size_t next) {
  if (next >= order_.size()) return;
  // The next arrival is queued before this one requests its pass, so jobs arriving at the same
  // instant are all waiting when that pass runs.
  queue_.Schedule(Job(static_cast<int>(next)).arrival, [this, next] {
    ScheduleArrival(next + 1);
    OnArrival(static_cast<int>(next));
  });
}

// Whether the job can ever run here: its best (consolidated) placement on the empty cluster, and
// its speed there (the reference rate). Cached by what decides it.
std::optional<std::string> Engine::CheckFits(int j) {
  const JobSpec& job = Job(j);
  auto key =
      std::make_tuple(job.gpus, job.gpu_milli, job.gpu_types, job.cpu_milli, job.memory_mib, job.speed);
  auto it = reference_cache_.find(key);
  if (it == reference_cache_.end()) {
    std::pair<double, std::string> ref{0, ""};
    Rng unused(0);
    std::optional<Allocation> a =
        BuiltinPlacements().Create("consolidated").value()->Place(empty_, job, unused);
    if (!a) {
      ref.second = fmt::format("needs {} GPU(s){}; no placement on the empty cluster satisfies it", job.gpus,
                               job.gpu_types.empty() ? "" : " of the allowed types");
    } else {
      Result<double> rate =
          options_.speeds
              ? options_.speeds->Rate(job, empty_.ShapeOf(*a), options_.cluster)
              : (job.speed.empty()
                     ? Result<double>(1.0)
                     : Result<double>(Error::NotFound("no speed book for job '" + job.name + "'")));
      if (!rate.ok() && rate.error().code != ErrorCode::kInfeasible) {
        error_ = rate.error();
        return "error";
      }
      if (rate.ok() && *rate > 0)
        ref.first = *rate;
      else
        ref.second = rate.ok() ? "its speed on its best placement is 0" : rate.error().message;
    }
    it = reference_cache_.emplace(std::move(key), std::move(ref)).first;
  }
  if (it->second.first > 0) {
    prog_[j].reference_rate = it->second.first;
    return std::nullopt;
  }
  return it->second.second;
}

void Engine::OnArrival(int j) {
  JobProgress& p = prog_[j];
  p.remaining = Job(j).work;
  p.since = queue_.Now();
  if (std::optional<std::string> why = CheckFits(j)) {
    p.status = JobStatus::kNeverFits;
    reason_[j] = *why;
    return;
  }
  AddWaiting(j);
  RequestPass();
}

void Engine::AddWaiting(int j) {
  prog_[j].status = JobStatus::kWaiting;
  if (policy_.StaticKeys()) {
    waiting_static_[DemandClass(Job(j))].insert(KeyOf(j));
    ++waiting_static_count_;
    return;
  }
  if (active_pos_[j] < 0) {
    active_pos_[j] = static_cast<int>(active_.size());
    active_.push_back(j);
  }
  if (merge_waiting_) waiting_sorted_.insert(KeyOf(j));
}

void Engine::RemoveActive(int j) {
  if (active_pos_[j] < 0) return;
  const int last = active_.back();
  active_[active_pos_[j]] = last;
  active_pos_[last] = active_pos_[j];
  active_.pop_back();
  active_pos_[j] = -1;
}

void Engine::RequestPass() {
  if (pass_requested_) return;
  pass_requested_ = true;
  queue_.Schedule(queue_.Now(), [this] {
    pass_requested_ = false;
    Pass();
    round_due_ = false;
  });
}

void Engine::Pass() {
  if (policy_.allocator() != nullptr) {
    if (round_due_) {
      ++passes_;
      PassAllocate();
    }
  } else if (round_due_ || !options_.policy_params.rounds_only) {
    ++passes_;
    if (policy_.Preemptive())
      PassPreemptive();
    else
      PassStatic();
  }
  if (policy_.data_workers() != nullptr) ScaleDataWorkers();
  ScheduleWake();
}

int Engine::DemandClass(const JobSpec& job) {
  const bool whole = job.gpus > 1 || (job.gpus == 1 && job.gpu_milli == 1000);
  return whole ? job.gpus : 0;
}

// Without backfill: the queue in key order, stopping at the first job that does not start.
void Engine::PassStatic() {
  if (policy_.Backfill()) return PassStaticBackfill();
  while (waiting_static_count_ > 0 && error_.ok()) {
    auto best = waiting_static_.end();
    for (auto c = waiting_static_.begin(); c != waiting_static_.end(); ++c)
      if (!c->second.empty() && (best == waiting_static_.end() || *c->second.begin() < *best->second.begin()))
        best = c;
    const int j = std::get<3>(*best->second.begin());
    if (state_.FreeWholeFor(Job(j)) < best->first || !TryStart(j)) return;
    best->second.erase(best->second.begin());
    --waiting_static_count_;
  }
}

// With backfill: every waiting job in key order that fits, merging the demand classes that fit
// the free GPUs (a class larger than the free GPUs is not visited at all).
void Engine::PassStaticBackfill() {
  using Cursor = std::pair<std::set<QueueKey>::iterator, std::set<QueueKey>*>;
  std::vector<std::pair<int, Cursor>> cursors;  // (demand, cursor)
  for (auto& [demand, set] : waiting_static_)
    if (!set.empty()) cursors.push_back({demand, {set.begin(), &set}});
  while (error_.ok()) {
    const int64_t free = state_.free_whole_total();
    int pick = -1;
    for (size_t c = 0; c < cursors.size(); ++c) {
      auto& [demand, cur] = cursors[c];
      if (demand > free || cur.first == cur.second->end()) continue;
      if (pick < 0 || *cur.first < *cursors[pick].second.first) pick = static_cast<int>(c);
    }
    if (pick < 0) return;
    auto& [demand, cur] = cursors[pick];
    const int j = std::get<3>(*cur.first);
    if (state_.FreeWholeFor(Job(j)) >= demand && TryStart(j)) {
      cur.first = cur.second->erase(cur.first);
      --waiting_static_count_;
    } else {
      ++cur.first;
    }
  }
}

// Whether job j fits what is left of the capacity (per GPU type, in milli-GPUs), taking it if so:
// a running job counts against its own type, a waiting one against the allowed type with the most
// capacity left.
bool Engine::Take(int j, std::vector<int64_t>& budget, int64_t& total) const {
  const JobSpec& job = Job(j);
  const ClusterSpec& spec = options_.cluster;
  const int64_t need = DemandMilli(job);
  int type = -1;
  if (budget.size() == 1) {
    type = 0;
  } else if (prog_[j].status == JobStatus::kRunning && !prog_[j].allocation.grants.empty()) {
    type = spec.nodes()[prog_[j].allocation.grants.front().node].gpu_type;
  } else {
    for (size_t t = 0; t < budget.size(); ++t) {
      const bool allowed = job.gpu_types.empty() ||
                           std::count(job.gpu_types.begin(), job.gpu_types.end(), static_cast<int>(t)) > 0;
      if (allowed && (type < 0 || budget[t] > budget[type])) type = static_cast<int>(t);
    }
  }
  if (type < 0 || budget[type] < need) return false;
  budget[type] -= need;
  total -= need;
  return true;
}

// Every active job, sorted by its key now (for policies whose waiting jobs' keys change).
std::vector<std::pair<int, bool>> Engine::RankFullSort() {
  std::vector<std::pair<QueueKey, int>> keyed;
  keyed.reserve(active_.size());
  for (int j : active_) keyed.push_back({KeyOf(j), j});
  std::sort(keyed.begin(), keyed.end());
  std::vector<int64_t> budget = type_capacity_;
  int64_t total = std::accumulate(budget.begin(), budget.end(), int64_t{0});
  std::vector<std::pair<int, bool>> out;
  out.reserve(keyed.size());
  for (const auto& [k, j] : keyed) out.push_back({j, total > 0 && Take(j, budget, total)});
  return out;
}

// The running jobs sorted by their keys now, merged with the sorted waiting set; stops once the
// capacity is used up (the jobs not visited do not get GPUs).
std::vector<std::pair<int, bool>> Engine::RankMerged() {
  // The running jobs in the order of the previous pass (still running ones), re-keyed and
  // insertion-sorted (their order drifts little between passes), then merged with the jobs that
  // started since (sorted on their own): O(R + drift + new log new) instead of O(R log R).
  std::vector<QueueKey>& running = running_keys_;
  running.clear();
  for (int j : rank_order_) {
    if (prog_[j].status == JobStatus::kRunning)
      running.push_back(KeyOf(j));
    else
      in_rank_[j] = 0;
  }
  for (size_t i = 1; i < running.size(); ++i)
    for (size_t k = i; k > 0 && running[k] < running[k - 1]; --k) std::swap(running[k], running[k - 1]);
  const size_t old = running.size();
  for (int j : running_)
    if (!in_rank_[j]) running.push_back(KeyOf(j)), in_rank_[j] = 1;
  std::sort(running.begin() + old, running.end());
  std::inplace_merge(running.begin(), running.begin() + old, running.end());
  rank_order_.clear();
  for (const QueueKey& k : running) rank_order_.push_back(std::get<3>(k));
  std::vector<int64_t> budget = type_capacity_;
  int64_t total = std::accumulate(budget.begin(), budget.end(), int64_t{0});
  std::vector<std::pair<int, bool>> out;
  out.reserve(running.size() + 8);
  auto r = running.begin();
  auto w = waiting_sorted_.begin();
  while (total > 0 && (r != running.end() || w != waiting_sorted_.end())) {
    const bool from_running = w == waiting_sorted_.end() || (r != running.end() && *r < *w);
    const int j = std::get<3>(from_running ? *r++ : *w++);
    out.push_back({j, Take(j, budget, total)});
  }
  return out;
}

void Engine::PassPreemptive() {
  if (active_.size() == running_.size()) return;  // nobody waits: nothing to change
  if (service_ && PassByService()) return;
  const std::vector<std::pair<int, bool>> ranked = merge_waiting_ ? RankMerged() : RankFullSort();
  for (const auto& [j, want] : ranked) desired_[j] = want;
  for (size_t i = running_.size(); i-- > 0;) {
    const int j = running_[i];
    if (desired_[j]) continue;
    Stop(j, JobStatus::kWaiting);
    ++prog_[j].preemptions;
    ++preemptions_;
  }
  for (const auto& [j, want] : ranked) {
    desired_[j] = 0;
    if (!want || !error_.ok() || prog_[j].status != JobStatus::kWaiting) continue;
    const QueueKey key = KeyOf(j);
    if (TryStart(j) && merge_waiting_) waiting_sorted_.erase(key);
  }
}

bool Engine::TryStart(int j) { return TryStartAs(j, Job(j)); }

// Places and starts job j with the demand of `job` (its own spec, or a resized copy).
bool Engine::TryStartAs(int j, const JobSpec& job) {
  std::optional<Allocation> a = placement_.Place(state_, job, rng_);
  if (!a) return false;
  Result<double> rate = options_.speeds ? options_.speeds->Rate(job, state_.ShapeOf(*a), options_.cluster,
                                                                job.work - prog_[j].remaining)
                                        : Result<double>(1.0);
  if (!rate.ok()) {
    if (rate.error().code != ErrorCode::kInfeasible) error_ = rate.error();
    reason_[j] = "placed on a shape that cannot run it: " + rate.error().message;
    return false;
  }
  if (!(*rate > 0)) return false;
  const double gpu_rate = *rate * ElasticSpeedup(Job(j), job.gpus);
  gpu_rate_[j] = gpu_rate;
  data_cores_[j] = 0;  // a (re)started job uses its local cores until the next data-worker plan
  const double capped = CappedRate(j, *a, gpu_rate);
  Start(j, std::move(*a), capped);
  return true;
}

void Engine::Start(int j, Allocation a, double rate) {
  Account();
  JobProgress& p = prog_[j];
  const TimePoint now = queue_.Now();
  state_.Allocate(Job(j), a);
  ++loan_.starts;
  p.status = JobStatus::kRunning;
  p.rate = rate;
  p.since = now;
  p.progress_from = now + (p.started ? options_.restart_overhead : Duration::Zero());
  if (!p.started) p.first_start = now, p.started = true;
  p.nodes_spanned = a.NodesSpanned();
  p.held_milli = 0;
  for (const GpuGrant& g : a.grants) p.held_milli += g.milli;
  p.allocation = std::move(a);
  running_pos_[j] = static_cast<int>(running_.size());
  running_.push_back(j);
  if (service_) {
    service_->Add(j, p.held_milli,
                  p.attained_gpu_s - now.ToSeconds() * static_cast<double>(p.held_milli) / 1000.0,
                  Job(j).arrival.ToNanos(), Job(j).id);
    running_milli_ += DemandMilli(Job(j));
  }
  const TimePoint done = p.progress_from + Seconds(p.remaining / rate);
  if (done.SinceStart().IsSaturated()) {  // ~146 years: a time the integer clock cannot hold
    error_ = Error::InvalidArgument(fmt::format(
        "job {} ('{}') would finish more than 146 years of simulated time after the start; the trace's work "
        "and load are beyond what the cluster can run",
        Job(j).id, Job(j).name));
    return;
  }
  finish_event_[j] = queue_.Schedule(done, [this, j] {
    Stop(j, JobStatus::kDone);
    RequestPass();
  });
}

// Ends a run: the job completes (kDone) or is preempted back to waiting.
void Engine::Stop(int j, JobStatus to) {
  Account();
  JobProgress& p = prog_[j];
  const TimePoint now = queue_.Now();
  EmitSpan(j);
  p.remaining = to == JobStatus::kDone ? 0 : RemainingAt(p, now);
  p.attained_gpu_s = AttainedAt(Job(j), p, now);
  p.executed_s += (now - p.since).ToSeconds();
  state_.Release(Job(j), p.allocation);
  if (to != JobStatus::kDone) queue_.Cancel(finish_event_[j]);
  const int last = running_.back();
  running_[running_pos_[j]] = last;
  running_pos_[last] = running_pos_[j];
  running_.pop_back();
  running_pos_[j] = -1;
  if (service_) {
    service_->Remove(j);
    running_milli_ -= DemandMilli(Job(j));
  }
  p.status = to;
  p.since = now;
  p.rate = 0;
  if (to == JobStatus::kDone) {
    p.finish = now;
    RemoveActive(j);
  } else {
    AddWaiting(j);
  }
}

// The next re-ranking: a round while jobs wait, or the earliest key change of a running job.
void Engine::ScheduleWake() {
  const size_t waiting = policy_.StaticKeys() ? waiting_static_count_ : active_.size() - running_.size();
  if (waiting == 0 && !(policy_.allocator() != nullptr && !active_.empty())) return;
  if (loan_.capacity_frozen && running_.empty()) return;  // loaning.cc: the capacity will not change again
  const TimePoint now = queue_.Now();
  std::optional<TimePoint> at;
  if (round_ > Duration::Zero()) {
    // Round-based decisions (allocation policies, rounds_only) keep a fixed grid of rounds, as a
    // round-based scheduler does; event-driven re-ranking (las) counts a round from now.
    const bool grid = policy_.allocator() != nullptr || options_.policy_params.rounds_only;
    const int64_t r = round_.ToNanos();
    at = grid ? TimePoint::FromNanos((now.ToNanos() / r + 1) * r) : now + round_;
  }
  if (policy_.KeysChangeInSteps() && !options_.policy_params.rounds_only)
    for (int j : running_)
      if (std::optional<TimePoint> t = policy_.NextKeyChange(Job(j), prog_[j], now); t && (!at || *t < *at))
        at = t;
  if (!at) return;
  if (wake_event_ && wake_at_ > now && wake_at_ <= *at) return;  // an earlier wake-up is pending
  if (wake_event_) queue_.Cancel(*wake_event_);
  wake_at_ = *at;
  wake_event_ = queue_.Schedule(*at, [this] {
    wake_event_.reset();
    round_due_ = true;
    RequestPass();
  });
}

// Integrates busy milli-GPUs up to now and closes the utilisation samples that ended.
void Engine::Account() {
  const TimePoint now = queue_.Now();
  const double busy = static_cast<double>(state_.busy_milli());
  while (next_sample_ <= now) {
    bucket_ += busy * (next_sample_ - last_account_).ToSeconds();
    const size_t waiting = policy_.StaticKeys() ? waiting_static_count_ : active_.size() - running_.size();
    samples_.push_back({next_sample_.ToSeconds(), bucket_ / sample_interval_.ToSeconds() / 1000.0,
                        static_cast<int64_t>(running_.size()), static_cast<int64_t>(waiting)});
    busy_integral_ += bucket_;
    bucket_ = 0;
    last_account_ = next_sample_;
    next_sample_ = next_sample_ + sample_interval_;
    if (samples_.size() == kMaxUtilSamples) CoarsenSamples();
  }
  bucket_ += busy * (now - last_account_).ToSeconds();
  last_account_ = now;
}

// Merges adjacent samples in pairs (the mean of the two, the counts at the later's end) and doubles the
// interval; the open interval after the last sample doubles with it. kMaxUtilSamples is even, so every
// merged sample spans two whole intervals.
void Engine::CoarsenSamples() {
  const size_t half = samples_.size() / 2;
  for (size_t i = 0; i < half; ++i) {
    const UtilSample& a = samples_[2 * i];
    const UtilSample& b = samples_[2 * i + 1];
    samples_[i] = {b.t_s, (a.busy_gpus + b.busy_gpus) / 2, b.running, b.waiting};
  }
  samples_.resize(half);
  next_sample_ = next_sample_ + sample_interval_;
  sample_interval_ = sample_interval_ * int64_t{2};
}

void Engine::EmitSpan(int j) {
  if (!sink_) return;
  const JobProgress& p = prog_[j];
  const JobSpec& job = Job(j);
  std::vector<int> nodes;
  for (const GpuGrant& g : p.allocation.grants)
    if (nodes.empty() || nodes.back() != g.node) nodes.push_back(g.node);
  for (int n : nodes)
    sink_->OnSpan({n,
                   0,
                   job.name.empty() ? fmt::format("job {}", job.id) : job.name,
                   "job",
                   p.since,
                   queue_.Now() - p.since,
                   {{"id", job.id}, {"gpus", int64_t{job.gpus}}}});
}

}  // namespace dlsim::cluster
