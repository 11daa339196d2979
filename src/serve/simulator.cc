#include "dlsim/serve/simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "dlsim/core/cancel.h"
#include "dlsim/core/event_queue.h"
#include "dlsim/core/log_histogram.h"
#include "dlsim/report/format.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/performance_record.h"
#include "dlsim/serve/prefix_cache.h"
#include "request_metrics.h"

namespace dlsim::serve {
namespace {

enum class Role { kMixed, kPrefill, kDecode };

struct Replica {
  int id = 0;
  Role role = Role::kMixed;
  ReplicaQueues q;
  KvCache kv;
  std::unique_ptr<PrefixCache> prefix;  // prefix caching; null when off
  std::unique_ptr<ReplicaScheduler> policy;
  Batch batch;
  bool busy = false;
  bool transferring = false;  // its current iteration moves weights over PCIe
  int64_t outstanding = 0;    // tokens still to process of the requests routed here
  int64_t iterations = 0;
  int64_t batch_requests = 0;
  Duration stall;
  int64_t offload_iterations = 0;
  int64_t interval_sum = 0;
  int run_left = 0;      // multi-step: decode steps left in the current run that do not pay the scheduler
  bool delivers = true;  // the current step streams its tokens (multi-step: only a run's last step)
  std::vector<int32_t> held;    // requests with tokens generated in the current run and not yet streamed
  std::vector<int32_t> lagged;  // held tokens of the last stream point, streamed when the next step ends
  Duration host;                // engine CPU time its steps exposed (EngineHost::StepWall less the GPU time)
};

// Events between two progress reports (a report is a callback; the loop runs ~1e7 events a second).
constexpr uint64_t kProgressEvents = 1 << 16;

class Simulation {
 public:
  Simulation(const ServeOptions& o, const IterationCostModel& cost, const MemoryPlan& plan,
             std::vector<Request> requests, report::Sink* sink)
      : o_(o),
        cost_(cost),
        plan_(plan),
        offloader_(plan, o.offload),
        reqs_(std::move(requests)),
        host_(HostOf(o)),
        window_(WindowOf(o)),
        tokens_per_step_(o.speculative.TokensPerStep()),
        sink_(sink) {
    lags_ = host_.async_output && host_.async_output_lags;
    if (o.offload.mode == OffloadMode::kSelectN && o.offload.slo_admission && plan.min_interval > 0)
      record_ = std::make_unique<PerformanceRecord>(PerformanceRecord::Build(o, plan, cost));
  }

  Status Build(const SchedulerRegistry& schedulers, const RouterRegistry& routers) {
    DLSIM_ASSIGN_OR_RETURN(auto probe, schedulers.Create(o_.scheduler.name, o_.scheduler));
    const bool disagg = probe->disaggregated();
    const int n =
        disagg ? o_.scheduler.prefill_replicas + o_.scheduler.decode_replicas : o_.hardware.replicas;
    if (n < 1 || n > kMaxReplicas) {
      return Error::InvalidArgument("hardware.replicas: " + std::to_string(n) + " replicas; allowed: 1.." +
                                    std::to_string(kMaxReplicas));
    }
    DLSIM_ASSIGN_OR_RETURN(const bool caching, PrefixCachingOn(o_));
    for (int i = 0; i < n; ++i) {
      auto r = std::make_unique<Replica>();
      r->id = i;
      r->role = !disagg ? Role::kMixed : (i < o_.scheduler.prefill_replicas ? Role::kPrefill : Role::kDecode);
      r->kv = KvCache(plan_.kv_blocks, o_.scheduler.block_size, o_.scheduler.watermark);
      r->kv.SetWindow(window_.window, window_.kv_share);
      if (caching) r->prefix = std::make_unique<PrefixCache>(o_.workload, o_.scheduler.block_size);
      DLSIM_ASSIGN_OR_RETURN(r->policy, schedulers.Create(o_.scheduler.name, o_.scheduler));
      (r->role == Role::kDecode ? decode_pool_ : entry_pool_).push_back(r.get());
      replicas_.push_back(std::move(r));
    }
    DLSIM_ASSIGN_OR_RETURN(entry_router_, routers.Create(o_.scheduler.router));
    DLSIM_ASSIGN_OR_RETURN(decode_router_, routers.Create(o_.scheduler.router));
    const double gbps = o_.scheduler.kv_transfer_gbps;
    kv_link_ = gbps > 0
                   ? GBps(gbps)
                   : (o_.gpu.nvlink_bandwidth.value() > 0 ? o_.gpu.nvlink_bandwidth : o_.gpu.PcieBandwidth());
    kv_link_ = kv_link_ * static_cast<double>(o_.hardware.tp);  // every GPU of the group sends its shard
    return Status::Ok();
  }

  void Run() {
    if (sink_ != nullptr) {
      for (const auto& r : replicas_) {
        const char* role = r->role == Role::kPrefill  ? " (prefill)"
                           : r->role == Role::kDecode ? " (decode)"
                                                      : "";
        sink_->OnProcessName({r->id, "replica " + std::to_string(r->id) + role, r->id});
        sink_->OnThreadName({r->id, 0, "iterations", 0});
      }
    }
    ScheduleNextArrival();
    const auto total = static_cast<size_t>(reqs_.size());
    uint64_t events = 0;
    queue_.RunCancellable([&] {  // when cancelled, Simulate returns CancelledError()
      if (progress_ && ++events % kProgressEvents == 0) progress_(static_cast<size_t>(completions_), total);
      return true;
    });
    if (progress_) progress_(static_cast<size_t>(completions_), total);
  }
  // Called with the requests completed of all, every kProgressEvents events and at the end.
  void set_progress(ProgressFn p) { progress_ = std::move(p); }

  ServeMetrics Metrics() const;
  // One record per request, in arrival order.
  std::vector<RequestRecord> Records() const;
  // The sanity phase (train's CheckSane for serving): ok when every request completed at ordered,
  // finite times. Errors: kInfeasible when a request can never run (more KV than a replica holds),
  // kInvalidArgument when the clock overflowed or the run went past options.max_iterations, kInternal
  // for a stall or a negative latency (a bug).
  Status CheckSane() const;

 private:
  // Fills the request metrics of `m` (internal::AddRequestMetrics) with the run's inter-token gaps.
  void AddRequestMetrics(ServeMetrics& m) const;
  // Fills the replica metrics of `m`: KV utilization, iterations, batch sizes, offloading.
  void AddReplicaMetrics(ServeMetrics& m) const;
  Status CheckLimits() const;
  // KV blocks `r` needs to be admitted and to finish on one replica (orca reserves max_seq_len).
  int64_t BlocksNeeded(const Request& r) const;
  Status NeverRan(const Request& longest, int64_t never, int64_t unfinished) const;

  // Every request arriving at this instant is queued before any idle replica forms a batch, so requests that
  // arrive together are scheduled together (as an engine's scheduler sees them), not the first one alone. In
  // a closed loop (workload.concurrency) only as many as there are free slots are sent, each stamped with
  // its send time; the others wait for a completion (Complete).
  void OnArrival() {
    arrival_scheduled_ = false;
    const auto n = static_cast<int32_t>(reqs_.size());
    const TimePoint now = queue_.Now();
    touched_.clear();
    while (next_arrival_ < n && reqs_[next_arrival_].arrival <= now && SlotFree()) {
      reqs_[next_arrival_].arrival = now;
      Replica* r = Enqueue(next_arrival_++, entry_pool_, *entry_router_, /*start=*/false);
      if (std::find(touched_.begin(), touched_.end(), r) == touched_.end()) touched_.push_back(r);
    }
    for (Replica* r : touched_)
      if (!r->busy) StartIteration(*r);
    ScheduleNextArrival();
  }

  // Requests in flight: those sent (next_arrival_) less those finished.
  bool SlotFree() const {
    return o_.workload.concurrency <= 0 || next_arrival_ - completions_ < o_.workload.concurrency;
  }

  // The next request's send: at its arrival, or (closed loop, every slot taken) at the next completion.
  void ScheduleNextArrival() {
    if (arrival_scheduled_ || next_arrival_ >= static_cast<int32_t>(reqs_.size()) || !SlotFree()) return;
    arrival_scheduled_ = true;
    queue_.Schedule(std::max(reqs_[next_arrival_].arrival, queue_.Now()), [this] { OnArrival(); });
  }

  // Queues request `idx` on the replica the router picks from `pool` and returns it; starts that replica's
  // next iteration when it is idle and `start`.
  Replica* Enqueue(int32_t idx, std::vector<Replica*>& pool, Router& router, bool start = true) {
    Request& req = reqs_[idx];
    Replica& r = *pool[Route(req, pool, router)];
    req.replica = r.id;
    r.outstanding += req.remaining_tokens();
    r.q.waiting.push_back(idx);
    if (start && !r.busy) StartIteration(r);
    return &r;
  }

  // The index in `pool` of the replica `router` picks for `req`; a cache-aware router also sees the request
  // counts and each replica's prefix cache.
  int Route(const Request& req, const std::vector<Replica*>& pool, Router& router) {
    outstanding_scratch_.resize(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) outstanding_scratch_[i] = pool[i]->outstanding;
    if (!router.reads_cache()) return router.Pick(outstanding_scratch_);
    requests_scratch_.assign(pool.size(), 0);
    cached_scratch_.assign(pool.size(), 0);
    cache_blocks_scratch_.assign(pool.size(), 0);
    for (size_t i = 0; i < pool.size(); ++i) {
      const Replica& p = *pool[i];
      requests_scratch_[i] =
          static_cast<int64_t>(p.q.waiting.size() + p.q.running.size() + p.q.swapped.size());
      if (p.prefix == nullptr) continue;
      cached_scratch_[i] = p.prefix->Match(req);
      cache_blocks_scratch_[i] = p.prefix->blocks();
    }
    return router.Pick(RouteContext{outstanding_scratch_, requests_scratch_, cached_scratch_,
                                    cache_blocks_scratch_, req.prompt});
  }

  void StartIteration(Replica& r) {
    r.batch.Clear();
    if (iterations_ >= o_.max_iterations) {  // a time limit: CheckSane reports it
      r.busy = false;
      return;
    }
    SchedulerContext ctx{reqs_, r.kv, plan_.block_bytes, 0};
    ctx.lookahead = o_.speculative.num_tokens;
    ctx.prefix = r.prefix.get();
    ctx.window = window_.window;
    if (record_ != nullptr) ctx.max_running = record_->MaxBatch(AdmissionContext(r.q));
    // Multi-step: vLLM calls its scheduler once per run and the run keeps its batch (LLMEngine.step skips
    // schedule() while the batch has remaining steps), so nothing joins before the run ends. A run whose
    // requests have all finished ends there: the engine schedules again.
    if (r.q.running.empty()) r.run_left = 0;
    if (r.run_left > 0) ctx.max_running = std::min(ctx.max_running, static_cast<int64_t>(r.q.running.size()));
    r.policy->FormBatch(r.q, ctx, r.batch);
    if (r.prefix != nullptr) r.prefix->Trim(r.kv);
    preemptions_ += ctx.preemptions;
    if (r.batch.empty()) {
      r.busy = false;
      return;
    }
    const TimePoint now = queue_.Now();
    const IterationTime t = cost_.Time(r.batch.shape);
    Duration d = t.Total(o_.model.layers);
    int interval = 0;
    if (offloader_.active()) d += OffloadStall(r, t, &interval);
    if (r.batch.swap_bytes.value() > 0) d += r.batch.swap_bytes / plan_.pcie;
    if (host_.any()) d = AddHostTime(r, d);
    MarkScheduled(r.batch, now);
    r.kv.Advance(now);
    r.busy = true;
    ++r.iterations;
    ++iterations_;
    r.batch_requests += static_cast<int64_t>(r.batch.entries.size());
    if (sink_ != nullptr) EmitSpan(r, now, d, interval);
    queue_.Schedule(now + d, [this, &r] { FinishIteration(r); });
  }

  // The wall time of `r`'s step of GPU time `gpu` with the engine's CPU time (engine_host.h) around it.
  Duration AddHostTime(Replica& r, Duration gpu) {
    const BatchShape& b = r.batch.shape;
    const bool decode_only = b.prefill_tokens == 0;
    const bool pays = host_.PaysStep(decode_only, &r.run_left);
    r.delivers = !(decode_only && host_.scheduler_steps > 1 && r.run_left > 0);
    const Duration wall =
        host_.StepWall(gpu, static_cast<int64_t>(r.batch.entries.size()), pays, decode_only);
    r.host += wall - gpu;
    return wall;
  }

  // The mean context of `q`'s running batch with the next waiting request admitted, half-way through
  // a median output (each request's KV tokens, the candidate's prompt, plus workload.output.median /
  // 2 each): the context Select-N's record is consulted at, so that the batch still meets the TPOT
  // SLO as its contexts grow.
  int64_t AdmissionContext(const ReplicaQueues& q) const {
    int64_t tokens = q.waiting.empty() ? 0 : reqs_[q.waiting.front()].prompt;
    for (int32_t idx : q.running) tokens += reqs_[idx].kv_tokens;
    const auto n = static_cast<int64_t>(q.running.size() + 1);
    return tokens / n + static_cast<int64_t>(o_.workload.output.median / 2);
  }

  // The weight-offloading stall of `r`'s iteration of per-layer time `t`, its PCIe bus shared with the
  // replicas on it that are transferring; records the stall and the offload interval (also in `*interval`).
  Duration OffloadStall(Replica& r, const IterationTime& t, int* interval) {
    // The replicas of r's bus are ids [bus x g, bus x g + g): only those are scanned (scanning every
    // replica per iteration made 10,000 offloading replicas quadratic).
    int sharers = 1;
    const int g = std::max(1, o_.offload.gpus_per_pcie_bus);
    const size_t first = static_cast<size_t>(r.id / g) * g;
    for (size_t i = first; i < std::min(replicas_.size(), first + g); ++i) {
      if (replicas_[i].get() != &r && replicas_[i]->transferring) ++sharers;
    }
    const Duration stall = offloader_.Stall(t.per_layer, sharers,
                                            plan_.block_bytes * static_cast<double>(r.kv.used()), interval);
    r.stall += stall;
    r.transferring = *interval > 0;
    if (*interval > 0) {
      ++r.offload_iterations;
      r.interval_sum += *interval;
    }
    return stall;
  }

  // Records `now` as the first scheduling time of the batch's requests not scheduled before. Only a prefill
  // can be a request's first step (a decode follows its own prefill, here or in a prefill pool; a swapped-in
  // request ran before), so decodes are skipped; CheckSane catches a request never marked.
  void MarkScheduled(const Batch& batch, TimePoint now) {
    for (const BatchEntry& e : batch.entries) {
      if (!e.prefill) continue;
      Request& req = reqs_[e.request];
      if (!req.scheduled) {
        req.scheduled = true;
        req.first_scheduled = now;
      }
    }
  }

  void EmitSpan(const Replica& r, TimePoint now, Duration d, int interval) {
    const BatchShape& s = r.batch.shape;
    const char* name = s.prefill_tokens == 0 ? "decode" : (s.decode_requests == 0 ? "prefill" : "mixed");
    sink_->OnSpan({r.id,
                   0,
                   name,
                   "iteration",
                   now,
                   d,
                   {{"prefill_tokens", s.prefill_tokens},
                    {"decode_requests", s.decode_requests},
                    {"kv_blocks_used", r.kv.used()},
                    {"offload_interval", int64_t{interval}}}});
    sink_->OnCounter({r.id, "kv_utilization", now, static_cast<double>(r.kv.used()) / r.kv.total()});
  }

  // A request's output token at `now`: its first token, or one more inter-token gap (ITL).
  void NoteToken(Request& req, TimePoint now) {
    if (req.generated == 1) {
      req.first_token = now;
    } else {
      const Duration gap = now - req.last_token;
      // The decode requests of one batch usually share the gap: count equal gaps in a run and add the run
      // once (FlushItl), which keeps ITL's cost per iteration, not per token.
      if (gap != itl_gap_) FlushItl();
      itl_gap_ = gap;
      ++itl_run_;
      req.max_itl = std::max(req.max_itl, gap);
    }
    req.last_token = now;
  }

  void FlushItl() {
    if (itl_run_ > 0) itl_.Add(itl_gap_.ToSeconds(), itl_run_);
    itl_run_ = 0;
  }

  void FinishIteration(Replica& r) {
    const TimePoint now = queue_.Now();
    if (!r.lagged.empty()) [[unlikely]]
      StreamLagged(r, now);
    const bool stream_now = r.delivers && !lags_;  // else held: streamed at the run's end or, lagging, after
    r.kv.Advance(now);
    r.transferring = false;
    if (r.kv.used() > r.kv.total()) ++overcommits_;
    bool any_left = false;
    for (const BatchEntry& e : r.batch.entries) {
      Request& req = reqs_[e.request];
      const int64_t before = req.remaining_tokens();
      if (e.prefill) {
        req.kv_tokens += e.tokens;
        req.prefilled += e.tokens;
        if (req.prefill_done()) {
          ++req.generated;
          if (r.prefix != nullptr) r.prefix->Insert(r.kv, req);
        }
      } else {
        const int32_t n = AcceptedTokens(req);
        req.kv_tokens += n;
        req.generated += n;
      }
      r.outstanding -= before - req.remaining_tokens();
      if (!req.prefill_done()) continue;
      if (stream_now) {
        NoteToken(req, now);
      } else if (!req.held) {
        req.held = true;  // streamed with the run's last step (StreamHeld)
        r.held.push_back(e.request);
      }
      if (req.generated >= req.output) {
        Complete(r, req, now);
        any_left = true;
      } else if (r.role == Role::kPrefill && e.prefill) {
        Handoff(r, e.request, now);
        any_left = true;
      }
    }
    if (any_left) {
      auto& run = r.q.running;
      run.erase(std::remove_if(run.begin(), run.end(), [this](int32_t i) { return reqs_[i].replica < 0; }),
                run.end());
    }
    if (r.delivers || r.q.running.empty()) {
      if (lags_ && !(r.q.running.empty() && r.q.waiting.empty())) [[unlikely]]
        std::swap(r.held, r.lagged);  // streamed when the next step ends (r.lagged was emptied above)
      else
        StreamHeld(r, now);
    }
    StartIteration(r);
  }

  // vLLM 0.6's asynchronous output processing (EngineHost::async_output_lags): the last stream point's tokens
  // reach the client when the step after it ends, before this step's tokens are counted.
  [[gnu::noinline, gnu::cold]] void StreamLagged(Replica& r, TimePoint now) {
    std::swap(r.held, r.lagged);
    StreamHeld(r, now);
    std::swap(r.held, r.lagged);  // r.held is the current run's again; r.lagged is empty
  }

  // The tokens a decode step emits for `req`: 1, or under speculative decoding the expected tokens per step
  // (SpeculativeOptions::TokensPerStep) accrued in its credit and emitted whole, at least 1, at most what it
  // has left to generate. Deterministic: the same run gives the same tokens.
  int32_t AcceptedTokens(Request& req) {
    if (o_.speculative.num_tokens <= 0) return 1;
    req.spec_credit += tokens_per_step_;
    const double left = std::max(1, req.output - req.generated);
    const auto n = static_cast<int32_t>(std::max(1.0, std::min(std::floor(req.spec_credit), left)));
    req.spec_credit -= n;
    return n;
  }

  // Multi-step scheduling streams a run's tokens when the run ends (vLLM's multi-step output processing):
  // each held request's tokens reach the client at `now`, as one chunk (one inter-token gap, as
  // benchmark_serving counts chunks), and a request that finished during the run finishes now.
  void StreamHeld(Replica& r, TimePoint now) {
    for (int32_t idx : r.held) {
      Request& req = reqs_[idx];
      req.held = false;
      if (req.last_token != now) NoteToken(req, now);  // (a first token is never held: prefill steps stream)
      if (req.done) req.finish = now;
    }
    r.held.clear();
  }

  void Complete(Replica& r, Request& req, TimePoint now) {
    req.done = true;
    req.finish = now;
    ReleaseKv(r.kv, r.prefix.get(), req);
    req.replica = -1;
    req.finished_on = r.id;
    ++completions_;
    ScheduleNextArrival();  // a closed loop's slot frees
  }

  // DistServe: the prefill is done; the KV moves to a decode replica, then the blocks here free.
  void Handoff(Replica& r, int32_t idx, TimePoint now) {
    Request& req = reqs_[idx];
    r.outstanding -= req.remaining_tokens();
    req.replica = -1;
    const Duration transfer = (plan_.block_bytes * static_cast<double>(req.blocks)) / kv_link_;
    queue_.Schedule(now + transfer, [this, &r, idx] {  // its blocks here are read until the KV is across
      r.kv.Advance(queue_.Now());
      ReleaseKv(r.kv, r.prefix.get(), reqs_[idx]);
      Enqueue(idx, decode_pool_, *decode_router_);
      if (!r.busy) StartIteration(r);
    });
  }

  const ServeOptions& o_;
  const IterationCostModel& cost_;
  MemoryPlan plan_;
  Offloader offloader_;
  std::unique_ptr<PerformanceRecord> record_;  // select-n's admission control; null otherwise
  std::vector<Request> reqs_;
  EngineHost host_;
  WindowedAttention window_;    // the model's sliding window as the engine runs it (engine_profile.h)
  double tokens_per_step_ = 1;  // speculative decoding's expected tokens per decode step
  report::Sink* sink_;
  ProgressFn progress_;
  EventQueue queue_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> entry_pool_, decode_pool_;
  std::unique_ptr<Router> entry_router_, decode_router_;
  std::vector<int64_t> outstanding_scratch_, requests_scratch_, cached_scratch_, cache_blocks_scratch_;
  BytesPerSecond kv_link_;
  bool lags_ = false;  // tokens stream when the next step ends (EngineHost::async_output_lags)
  int32_t next_arrival_ = 0;
  bool arrival_scheduled_ = false;  // an OnArrival event is queued
  std::vector<Replica*> touched_;   // replicas that got a request in the current arrival instant
  int64_t preemptions_ = 0;
  int64_t completions_ = 0;
  int64_t iterations_ = 0;  // of all replicas
  int64_t overcommits_ = 0;
  LogHistogram itl_;  // every inter-token gap of the run
  Duration itl_gap_;  // the run of equal gaps not yet added to itl_ (FlushItl), and its length
  int64_t itl_run_ = 0;
};

ServeMetrics Simulation::Metrics() const {
  ServeMetrics m;
  m.requests_total = static_cast<int64_t>(reqs_.size());
  m.completions_recorded = completions_;
  AddRequestMetrics(m);
  AddReplicaMetrics(m);
  m.kv_overcommits = overcommits_;
  m.preemptions = preemptions_;
  m.host_memory_gib_per_gpu = plan_.HostBytes().ToGiB();
  return m;
}

std::vector<RequestRecord> Simulation::Records() const {
  return internal::RequestRecords(reqs_, host_.first_token, o_.slo);
}

void Simulation::AddRequestMetrics(ServeMetrics& m) const {
  LogHistogram itl = itl_;  // with the run FlushItl has not added yet
  if (itl_run_ > 0) itl.Add(itl_gap_.ToSeconds(), itl_run_);
  internal::AddRequestMetrics(reqs_, host_.first_token, o_.slo, itl, m);
}

void Simulation::AddReplicaMetrics(ServeMetrics& m) const {
  int64_t batch_requests = 0, off_iters = 0, interval_sum = 0;
  for (const auto& r : replicas_) {
    m.kv_mean_utilization += r->kv.MeanUtilization() / static_cast<double>(replicas_.size());
    m.kv_peak_utilization =
        std::max(m.kv_peak_utilization, static_cast<double>(r->kv.peak()) / r->kv.total());
    m.iterations += r->iterations;
    batch_requests += r->batch_requests;
    m.offload_stall_s += r->stall.ToSeconds();
    m.engine_cpu_s += r->host.ToSeconds();
    off_iters += r->offload_iterations;
    interval_sum += r->interval_sum;
    if (r->prefix == nullptr) continue;
    m.prefix_caching = true;
    m.prefix_lookup_tokens += r->prefix->looked_up_tokens();
    m.prefix_hit_tokens += r->prefix->hit_tokens();
  }
  if (m.prefix_lookup_tokens > 0)
    m.prefix_hit_rate =
        static_cast<double>(m.prefix_hit_tokens) / static_cast<double>(m.prefix_lookup_tokens);
  m.mean_batch_requests = m.iterations > 0 ? static_cast<double>(batch_requests) / m.iterations : 0;
  m.mean_offload_interval = off_iters > 0 ? static_cast<double>(interval_sum) / off_iters : 0;
}

// The run's limits: the simulated clock and the iterations of all replicas.
Status Simulation::CheckLimits() const {
  if (queue_.Now().SinceStart().IsSaturated()) {
    return Error::InvalidArgument(
        "the simulated run overflows the clock (an event after 146 years): an input is far out of its "
        "range (a KV or PCIe link, or an arrival rate, near zero?)");
  }
  if (iterations_ >= o_.max_iterations && completions_ < static_cast<int64_t>(reqs_.size())) {
    return Error::InvalidArgument(fmt::format(
        "the run needs more than {} scheduler iterations (a time limit: about 1e6 a second), and {} of {} "
        "requests had completed: give fewer requests or shorter outputs, or simulate a share of the "
        "replicas at that share of the rate",
        o_.max_iterations, completions_, reqs_.size()));
  }
  return Status::Ok();
}

Status Simulation::CheckSane() const {
  DLSIM_RETURN_IF_ERROR(CheckLimits());
  int64_t unfinished = 0, never = 0;
  const Request* longest = nullptr;  // of the requests that can never run, the one needing most blocks
  const int64_t total = replicas_.front()->kv.total();
  for (const Request& r : reqs_) {
    if (r.done &&
        (r.first_scheduled < r.arrival || r.first_token < r.first_scheduled || r.finish < r.first_token))
      return Error::Internal("a request's times are out of order (a negative latency): a simulator bug");
    if (r.done) continue;
    ++unfinished;
    if (BlocksNeeded(r) <= total) continue;
    ++never;
    if (longest == nullptr || BlocksNeeded(r) > BlocksNeeded(*longest)) longest = &r;
  }
  if (unfinished == 0) return Status::Ok();
  if (longest == nullptr) {
    return Error::Internal(fmt::format(
        "{} of {} requests never completed, though each fits the KV cache: the scheduler stalled (a "
        "simulator bug; please report it with the scenario)",
        unfinished, reqs_.size()));
  }
  return NeverRan(*longest, never, unfinished);
}

int64_t Simulation::BlocksNeeded(const Request& r) const {
  const KvCache& kv = replicas_.front()->kv;
  const bool orca = o_.scheduler.name == "orca";
  const int64_t tokens = int64_t{r.prompt} + r.output;
  const int64_t reserved = orca ? std::max<int64_t>(o_.scheduler.max_seq_len, tokens) : tokens;
  const int64_t admit = kv.BlocksFor(orca ? reserved : r.prompt) + kv.watermark_blocks();
  return std::max(kv.BlocksFor(reserved), admit);
}

// Why `never` requests can never run (from `longest`, the one needing most blocks), and `unfinished`
// requests in all did not complete (the others waited behind them).
Status Simulation::NeverRan(const Request& longest, int64_t never, int64_t unfinished) const {
  const KvCache& kv = replicas_.front()->kv;
  std::string what = fmt::format("{} of {} requests can never run", never, reqs_.size());
  if (unfinished > never) what += fmt::format(" ({} more waited behind them)", unfinished - never);
  const std::string holds =
      fmt::format("{} KV blocks of {} tokens, and a replica holds {} ({} of KV)", BlocksNeeded(longest),
                  kv.block_size(), kv.total(), report::FormatBytes(plan_.kv_capacity));
  if (o_.scheduler.name == "orca" && o_.scheduler.max_seq_len > int64_t{longest.prompt} + longest.output) {
    return Error::Infeasible(what +
                             fmt::format(": orca reserves scheduler.max_seq_len = {} tokens per request, ",
                                         o_.scheduler.max_seq_len) +
                             holds +
                             ": lower max_seq_len or give the KV more memory (tp, pp, memory_margin)");
  }
  return Error::Infeasible(
      what +
      fmt::format(": the longest, of {} prompt + {} output tokens, needs ", longest.prompt, longest.output) +
      holds +
      ": cap the lengths (workload.prompt_tokens / output_tokens max) or give the "
      "KV more memory (tp, pp, memory_margin, offload)");
}

// `result` with the infeasibility of `e` (kInfeasible), or `e` itself.
Result<ServeResult> InfeasibleOr(ServeResult result, const Error& e, int64_t requests) {
  if (e.code != ErrorCode::kInfeasible) return e;
  result.feasible = false;
  result.reason = e.message;
  result.metrics.requests_total = requests;
  return result;
}

}  // namespace

Result<ServeResult> Simulate(const ServeOptions& options, const IterationCostModel& cost,
                             const SchedulerRegistry& schedulers, const RouterRegistry& routers,
                             report::Sink* sink, const ProgressFn& progress) {
  ServeResult result;
  result.scheduler = options.scheduler.name;
  result.profiled = cost.profiled();
  DLSIM_ASSIGN_OR_RETURN(std::vector<Request> requests, GenerateRequests(options.workload));
  const auto total = static_cast<int64_t>(requests.size());
  if (Status context = CheckContextCap(options, requests); !context.ok())
    return InfeasibleOr(std::move(result), context.error(), total);
  auto plan = PlanMemory(options, cost);
  if (!plan.ok()) return InfeasibleOr(std::move(result), plan.error(), total);
  result.memory = *plan;
  result.replicas = options.hardware.replicas;
  Simulation sim(options, cost, *plan, std::move(requests), sink);
  DLSIM_RETURN_IF_ERROR(sim.Build(schedulers, routers));
  sim.set_progress(progress);
  sim.Run();
  if (CancelRequested()) return CancelledError();
  if (Status sane = sim.CheckSane(); !sane.ok()) return InfeasibleOr(std::move(result), sane.error(), total);
  result.metrics = sim.Metrics();
  if (options.keep_records) result.records = sim.Records();
  return result;
}

}  // namespace dlsim::serve
