#include "dlsim/train/step_sim.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <string>

#include "dlsim/core/event_queue.h"

namespace dlsim::train {
namespace {

// A FIFO server: work enqueued at the current time starts when the stream is free.
struct FifoStream {
  TimePoint free_at;
  // Returns the start time of work of length `d` enqueued at `now`.
  TimePoint Enqueue(TimePoint now, Duration d) {
    TimePoint start = std::max(now, free_at);
    free_at = start + d;
    return start;
  }
};

// A busy interval of a stream, [first, second).
using Interval = std::pair<TimePoint, TimePoint>;

// The time in which both sets of intervals are busy (each set's own intervals may overlap each other).
Duration OverlapOf(std::vector<Interval> a, std::vector<Interval> b) {
  const auto merged = [](std::vector<Interval>& v) {
    std::sort(v.begin(), v.end());
    std::vector<Interval> out;
    for (const Interval& i : v) {
      if (!out.empty() && i.first <= out.back().second)
        out.back().second = std::max(out.back().second, i.second);
      else
        out.push_back(i);
    }
    return out;
  };
  const std::vector<Interval> x = merged(a), y = merged(b);
  Duration both;
  for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    const TimePoint from = std::max(x[i].first, y[j].first), to = std::min(x[i].second, y[j].second);
    if (from < to) both += to - from;
    (x[i].second < y[j].second ? i : j)++;
  }
  return both;
}

class StepRun {
 public:
  StepRun(const StepProgram& prog, report::Sink* sink)
      : prog_(prog),
        sink_(sink),
        p_(prog.shape.stages),
        v_(prog.shape.chunks),
        replicas_(static_cast<int>(prog.orders.size())) {
    assert(replicas_ >= 1);
    m_ = 1;
    for (const PipeOrder& order : prog.orders)
      for (const auto& rank : order)
        for (const PipeTask& t : rank) m_ = std::max(m_, t.micro_batch + 1);
    const size_t n = static_cast<size_t>(replicas_) * p_ * v_ * m_;
    fwd_arrived_.assign(n, false);
    bwd_arrived_.assign(n, false);
    units_.resize(static_cast<size_t>(replicas_) * p_);
    for (int x = 0; x < replicas_; ++x) {
      for (int r = 0; r < p_; ++r) {
        Unit& u = U(x, r);
        u.last_bwd_of_chunk.assign(v_, -1);
        u.in_flight_by_chunk.assign(v_, 0);
        const auto& order = prog_.orders[x][r];
        for (int i = 0; i < static_cast<int>(order.size()); ++i)
          if (!order[i].forward) u.last_bwd_of_chunk[order[i].chunk] = i;
      }
    }
    dp_.resize(p_);
    for (int r = 0; r < p_; ++r) {
      const size_t nb = prog_.buckets.empty() ? 0 : prog_.buckets[r].size();
      dp_[r].ready_count.assign(nb, 0);
      dp_[r].left = static_cast<int>(nb);
    }
  }

  StepTimeline Run() {
    NameStreams();
    for (int x = 0; x < replicas_; ++x)
      for (int r = 0; r < p_; ++r) {
        if (prog_.orders[x][r].empty()) {  // nothing to run: ready for the reductions at once
          U(x, r).compute_done = true;
          // Its (zero) gradients join every bucket's collective, which waits for all replicas.
          if (prog_.overlap_grad_reduce)
            for (size_t b = 0; b < dp_[r].ready_count.size(); ++b) BucketReady(r, b);
          if (++dp_[r].computing == replicas_ && !prog_.overlap_grad_reduce)
            for (size_t b = 0; b < dp_[r].ready_count.size(); ++b) Reduce(r, b);
          continue;
        }
        if (Zero3(r) > Duration::Zero()) PrefetchGather(x, r, 0);
        TryStart(x, r);
      }
    for (int r = 0; r < p_; ++r) MaybeRankReduced(r);
    q_.Run();
    ApplyContention();
    EmitStepEnd();
    return Summarize();
  }

 private:
  // One pipeline rank of one replica.
  struct Unit {
    size_t next = 0;
    bool busy = false;
    FifoStream p2p, gather;
    std::vector<int> last_bwd_of_chunk;
    bool compute_done = false;
    TimePoint last_compute_end;
    std::vector<TimePoint> gather_start;        // ZeRO-3: per task index, when its chunk's gather starts
    std::vector<Duration> gather_dur;           // and how long it takes (zero: the chunk is resident)
    std::vector<char> chunk_gathered;           // [chunk] gathered this step (no resharding only)
    std::optional<TimePoint> gather_wait_from;  // since when the next task waits only for its gather
    int in_flight = 0;
    std::vector<int> in_flight_by_chunk;  // [chunk]
    double held = 0;                      // activation bytes in flight (StepProgram::activation_bytes)
    double peak_held = -1;
    RankTimeline t;
    std::vector<Interval> compute_spans, gather_spans;  // recorded when StepProgram::overlap_contention > 0
    TimePoint send_done;  // p2p_blocking: no task starts before the rank's last send has completed
    Duration stretch;     // of t.contention: the compute's own, after its last backward (ApplyContention)
  };
  // The data-parallel stream of a pipeline rank, shared by the replicas (one collective).
  struct DpState {
    FifoStream stream;
    std::vector<int> ready_count;  // per bucket: replicas that produced it
    int left = 0;                  // buckets not yet reduced
    int computing = 0;             // replicas whose compute is done
    bool counted = false;
    std::vector<Interval> spans;  // reductions (recorded when StepProgram::overlap_contention > 0)
    Duration last_reduce;         // the last enqueued bucket's reduction
    TimePoint reduced_at;         // when the last reduction ends
  };

  Unit& U(int x, int r) { return units_[static_cast<size_t>(x) * p_ + r]; }

  double ActivationBytes(int r, int chunk) const {
    return prog_.activation_bytes.empty() ? 1.0 : prog_.activation_bytes[r][chunk];
  }
  // Records the held activations if they peak with `extra` more micro-batches of `chunk` in flight.
  void NotePeak(Unit& u, int r, int chunk, int extra) {
    const double held = u.held + extra * ActivationBytes(r, chunk);
    u.t.peak_in_flight = std::max(u.t.peak_in_flight, u.in_flight + extra);
    if (held <= u.peak_held) return;
    u.peak_held = held;
    u.t.peak_in_flight_by_chunk = u.in_flight_by_chunk;
    u.t.peak_in_flight_by_chunk[chunk] += extra;
  }
  // A forward that keeps its activations holds them until its backward; one that does not (recomputed at its
  // backward) holds them only while that backward runs.
  void CountActivations(Unit& u, int r, const PipeTask& task, bool keeps) {
    if (!keeps) {
      if (!task.forward) NotePeak(u, r, task.chunk, 1);
      return;
    }
    const int step = task.forward ? 1 : -1;
    u.in_flight += step;
    u.in_flight_by_chunk[task.chunk] += step;
    u.held += step * ActivationBytes(r, task.chunk);
    if (task.forward) NotePeak(u, r, task.chunk, 0);
  }
  // Event callbacks capture [this, one 64-bit key] so std::function keeps them inline: a replica (24 bits),
  // a rank or stage (20 bits) and a task, bucket or micro-batch index (20 bits). The layout check bounds the
  // tasks per rank (kMaxPipelineTasks) and step_model.cc the buckets, so every index fits.
  static uint64_t Pack(int a, int b, int c) {
    assert(a >= 0 && a < (1 << 24) && b >= 0 && b < (1 << 20) && c >= 0 && c < (1 << 20));
    return (static_cast<uint64_t>(a) << 40) | (static_cast<uint64_t>(b) << 20) | static_cast<uint64_t>(c);
  }
  static int A(uint64_t k) { return static_cast<int>(k >> 40); }
  static int B(uint64_t k) { return static_cast<int>((k >> 20) & 0xFFFFF); }
  static int C(uint64_t k) { return static_cast<int>(k & 0xFFFFF); }
  size_t Key(int x, int vs, int mb) const { return (static_cast<size_t>(x) * p_ * v_ + vs) * m_ + mb; }
  Duration Zero3(int r) const {
    return prog_.zero3_gather.empty() ? Duration::Zero() : prog_.zero3_gather[r];
  }
  int Zero3Layers(int r) const {
    return r < static_cast<int>(prog_.zero3_layers.size()) ? std::max(1, prog_.zero3_layers[r]) : 1;
  }
  bool Contended() const { return prog_.overlap_contention > 0; }
  // FSDP2's copy-out before task `index`: when its chunk was gathered for it.
  Duration CopyOut(const Unit& u, int r, size_t index) const {
    if (static_cast<size_t>(r) >= prog_.zero3_copy_out.size() || index >= u.gather_dur.size() ||
        u.gather_dur[index] <= Duration::Zero())
      return Duration::Zero();
    return prog_.zero3_copy_out[r];
  }
  // The gather of a chunk's first layer, after which a task may start (the others arrive while it runs).
  Duration FirstLayer(int r, Duration gather) const { return gather * (1.0 / Zero3Layers(r)); }
  // The gather task `index` needs: the chunk's, unless its parameters stayed from an earlier task of the step
  // (no resharding after the forward).
  Duration TaskGather(Unit& u, int x, int r, size_t index) const {
    if (prog_.zero3_reshard) return Zero3(r);
    const auto chunk = static_cast<size_t>(prog_.orders[x][r][index].chunk);
    if (u.chunk_gathered.size() <= chunk) u.chunk_gathered.resize(chunk + 1, 0);
    if (u.chunk_gathered[chunk]) return Duration::Zero();
    u.chunk_gathered[chunk] = 1;
    return Zero3(r);
  }
  int Process(int x, int r) const { return x * p_ + r; }

  void Span(int x, int r, int stream, std::string name, const char* cat, TimePoint start, Duration d,
            report::Args args = {}) {
    if (!sink_ || d <= Duration::Zero()) return;
    report::SpanEvent e;
    e.process = Process(x, r);
    e.thread = stream;
    e.name = std::move(name);
    e.category = cat;
    e.start = start;
    e.duration = d;
    e.args = std::move(args);
    sink_->OnSpan(e);
  }
  // The args of a collective span (report/execution_graph.h).
  static report::Args Collective(const char* comm, const char* group, Bytes bytes) {
    return {{"comm", std::string(comm)}, {"group", std::string(group)}, {"bytes", bytes.value()}};
  }
  Bytes At(const std::vector<Bytes>& v, int r) const {
    return r < static_cast<int>(v.size()) ? v[r] : Bytes(0);
  }
  Duration At(const std::vector<Duration>& v, int r) const {
    return r < static_cast<int>(v.size()) ? v[r] : Duration::Zero();
  }

  void NameStreams() {
    if (!sink_) return;
    static const char* kNames[] = {"compute", "p2p", "dp-comm"};
    for (int x = 0; x < replicas_; ++x)
      for (int r = 0; r < p_; ++r) {
        const int pid = Process(x, r);
        std::string name = "pipeline rank " + std::to_string(r);
        if (replicas_ > 1) name = "dp " + std::to_string(x) + " / " + name;
        sink_->OnProcessName({pid, name, pid});
        for (int s = 0; s < kStreamsPerRank; ++s) sink_->OnThreadName({pid, s, kNames[s], s});
      }
  }

  // Whether the task's inputs have arrived (activation, or the gradient from the next stage).
  bool DataReady(int x, int r, const PipeTask& t) {
    const int vs = VirtualStage(r, t.chunk, p_);
    if (t.forward) return vs == 0 || fwd_arrived_[Key(x, vs, t.micro_batch)];
    return vs == p_ * v_ - 1 || bwd_arrived_[Key(x, vs, t.micro_batch)];
  }

  // Whether the task's ZeRO-3 parameter gather is done. A task whose inputs are there but whose gather is
  // not waits for ZeRO-3 communication, not for the pipeline: that time is counted as gather_wait.
  bool GatherReadyOrWait(Unit& u, int r, size_t index) {
    const bool ready = Zero3(r) <= Duration::Zero() ||
                       (index < u.gather_start.size() &&
                        u.gather_start[index] + FirstLayer(r, u.gather_dur[index]) <= q_.Now());
    if (!ready && !u.gather_wait_from) u.gather_wait_from = q_.Now();
    if (ready && u.gather_wait_from) {
      u.t.gather_wait += q_.Now() - *u.gather_wait_from;
      u.gather_wait_from.reset();
    }
    return ready;
  }

  void PrefetchGather(int x, int r, size_t index) {
    Unit& u = U(x, r);
    if (index >= prog_.orders[x][r].size() || index < u.gather_start.size()) return;
    const Duration d = TaskGather(u, x, r, index);
    const TimePoint start = d > Duration::Zero() ? u.gather.Enqueue(q_.Now(), d) : q_.Now();
    u.gather_start.push_back(start);
    u.gather_dur.push_back(d);
    if (Contended() && d > Duration::Zero()) u.gather_spans.emplace_back(start, start + d);
    if (sink_)
      Span(x, r, kDpStream, "zero3 gather", "dp", start, d,
           Collective("all_gather", "dp", At(prog_.zero3_gather_bytes, r)));
    const uint64_t k = Pack(x, r, 0);
    q_.Schedule(start + FirstLayer(r, d), [this, k] { TryStart(A(k), B(k)); });
  }

  void TryStart(int x, int r) {
    Unit& u = U(x, r);
    const auto& order = prog_.orders[x][r];
    if (u.busy || u.next >= order.size() || q_.Now() < u.send_done) return;
    const size_t index = u.next;
    const PipeTask task = order[index];
    if (!DataReady(x, r, task) || !GatherReadyOrWait(u, r, index)) return;
    u.busy = true;
    u.next++;
    const TimePoint now = q_.Now();
    const TaskCost c = prog_.task_cost(x, r, task);
    const Duration copy_out = CopyOut(u, r, index);
    const Duration d = c.Total() + copy_out;
    u.t.compute += c.compute + copy_out;
    u.t.mix += c.mix;
    u.t.mix.memory += copy_out;
    if (Contended()) u.compute_spans.emplace_back(now, now + d);
    u.t.recompute += c.recompute;
    u.t.tp_comm += c.tp_comm;
    u.t.cp_comm += c.cp_comm;
    u.t.ep_comm += c.ep_comm;
    CountActivations(u, r, task, !prog_.keeps_activations || prog_.keeps_activations(x, task.micro_batch));
    if (sink_)
      Span(x, r, kComputeStream,
           std::string(task.forward ? "F" : "B") + std::to_string(task.micro_batch) +
               (v_ > 1 ? "." + std::to_string(task.chunk) : ""),
           task.forward ? "forward" : "backward", now, d);
    if (Zero3(r) > Duration::Zero()) PrefetchGather(x, r, index + 1);
    // Gradient buckets of this chunk become ready during its last backward.
    if (!task.forward && prog_.overlap_grad_reduce && !prog_.buckets.empty() &&
        u.last_bwd_of_chunk[task.chunk] == static_cast<int>(index)) {
      const auto& buckets = prog_.buckets[r];
      for (size_t b = 0; b < buckets.size(); ++b) {
        if (buckets[b].chunk != task.chunk) continue;
        const uint64_t k = Pack(0, r, static_cast<int>(b));
        q_.Schedule(now + d * buckets[b].ready_fraction, [this, k] { BucketReady(B(k), C(k)); });
      }
    }
    // Layer by layer, the task's last layer waits for the chunk's whole gather: that wait is ZeRO-3's too.
    Duration wait;
    if (Zero3(r) > Duration::Zero() && index < u.gather_start.size() &&
        u.gather_dur[index] > Duration::Zero()) {
      const TimePoint last = u.gather_start[index] + u.gather_dur[index] + d * (1.0 / Zero3Layers(r));
      if (last > now + d) wait = last - (now + d);
      u.t.gather_wait += wait;
    }
    const uint64_t k = Pack(x, r, static_cast<int>(index));
    q_.Schedule(now + d + wait, [this, k] { Finish(A(k), B(k), prog_.orders[A(k)][B(k)][C(k)]); });
  }

  void Finish(int x, int r, const PipeTask& task) {
    Unit& u = U(x, r);
    u.busy = false;
    const int vs = VirtualStage(r, task.chunk, p_);
    if (task.forward && vs < p_ * v_ - 1) Send(x, r, vs + 1, task.micro_batch, true);
    if (!task.forward && vs > 0) Send(x, r, vs - 1, task.micro_batch, false);
    if (u.next >= prog_.orders[x][r].size()) {
      u.compute_done = true;
      u.last_compute_end = q_.Now();
      DpState& dp = dp_[r];
      if (++dp.computing == replicas_ && !prog_.overlap_grad_reduce)
        for (size_t b = 0; b < dp.ready_count.size(); ++b) Reduce(r, b);
      MaybeRankReduced(r);
    }
    TryStart(x, r);
  }

  void Send(int x, int r, int to_vs, int mb, bool forward) {
    const int to_rank = to_vs % p_;
    const uint64_t k = Pack(x, to_vs * 2 + (forward ? 1 : 0), mb);
    auto deliver = [this, k] {
      const int vs = B(k) / 2;
      (B(k) % 2 ? fwd_arrived_ : bwd_arrived_)[Key(A(k), vs, C(k))] = true;
      TryStart(A(k), vs % p_);
    };
    if (to_rank == r) {  // same rank (p == 1): no transfer
      deliver();
      return;
    }
    const int from_vs = forward ? to_vs - 1 : to_vs + 1;
    const Duration d = prog_.p2p_time ? prog_.p2p_time(x, from_vs, mb, forward) : prog_.p2p;
    Unit& from = U(x, r);
    TimePoint start = from.p2p.Enqueue(q_.Now(), d);
    if (prog_.p2p_blocking && start + d > from.send_done) {
      from.send_done = start + d;
      const uint64_t k = Pack(x, r, 0);
      q_.Schedule(start + d, [this, k] { TryStart(A(k), B(k)); });
    }
    if (sink_)
      Span(x, r, kP2pStream, std::string(forward ? "send act " : "send grad ") + std::to_string(mb), "pp",
           start, d,
           {{"comm", std::string("send")},
            {"peer", static_cast<int64_t>(Process(x, to_rank))},
            {"bytes", prog_.p2p_time ? 0.0 : prog_.p2p_bytes.value()}});
    q_.Schedule(start + d, deliver);
  }

  // A bucket is reduced once every replica has produced it (the collective spans them all).
  void BucketReady(int r, size_t b) {
    if (++dp_[r].ready_count[b] == replicas_) Reduce(r, b);
  }

  void Reduce(int r, size_t b) {
    DpState& dp = dp_[r];
    const GradBucket& bucket = prog_.buckets[r][b];
    TimePoint start = dp.stream.Enqueue(q_.Now(), bucket.reduce);
    dp.last_reduce = bucket.reduce;
    dp.reduced_at = std::max(dp.reduced_at, start + bucket.reduce);
    if (Contended()) dp.spans.emplace_back(start, start + bucket.reduce);
    if (sink_)
      for (int x = 0; x < replicas_; ++x)
        Span(x, r, kDpStream, "grad reduce c" + std::to_string(bucket.chunk), "dp", start, bucket.reduce,
             Collective(bucket.collective, bucket.group, bucket.bytes));
    q_.Schedule(start + bucket.reduce, [this, r] {  // [this, int]: inline
      dp_[r].left--;
      MaybeRankReduced(r);
    });
  }

  // A pipeline rank whose replicas have all finished computing and reducing joins the global
  // gradient-norm barrier; the optimizer starts everywhere once all ranks have arrived.
  void MaybeRankReduced(int r) {
    DpState& dp = dp_[r];
    if (dp.counted || dp.computing < replicas_ || dp.left > 0) return;
    dp.counted = true;
    if (++ranks_reduced_ < p_) return;
    const TimePoint barrier = q_.Now();
    barrier_ = barrier;
    for (int r2 = 0; r2 < p_; ++r2) {
      const Duration opt = prog_.optimizer.empty() ? Duration::Zero() : prog_.optimizer[r2];
      const Duration gather = prog_.param_gather.empty() ? Duration::Zero() : prog_.param_gather[r2];
      const Duration slowed = At(prog_.param_gather_contention, r2);
      for (int x = 0; x < replicas_; ++x) {
        Unit& u = U(x, r2);
        u.t.dp_exposed = barrier - u.last_compute_end;
        u.t.optimizer = opt;
        u.t.param_gather = gather;
        u.t.contention = slowed;
        u.t.finish = (barrier + opt + gather + slowed) - TimePoint::Start();
      }
    }
  }

  // The spans after the last backward, once contention has moved them (ApplyContention): the compute's own
  // stretch, the optimizer, the exposed parameter gather and the next forward's stretch beside that gather.
  void EmitStepEnd() {
    if (!sink_) return;
    for (int x = 0; x < replicas_; ++x)
      for (int r = 0; r < p_; ++r) {
        const Unit& u = U(x, r);
        Span(x, r, kComputeStream, "contention", "contention", u.last_compute_end, u.stretch);
        Span(x, r, kComputeStream, "optimizer", "optimizer", barrier_, u.t.optimizer);
        const TimePoint gather_at = barrier_ + u.t.optimizer;
        Span(x, r, kDpStream, "param gather", "dp", gather_at, u.t.param_gather,
             Collective("all_gather", "dp", At(prog_.param_gather_bytes, r)));
        Span(x, r, kComputeStream, "contention", "contention", gather_at + u.t.param_gather,
             u.t.contention - u.stretch);
      }
  }

  // StepProgram::overlap_contention, after the event run: each unit's compute grows by c / (1 + c) of the
  // time it overlapped its gathers and its rank's reductions. A rank's reductions then end no earlier than
  // its stretched compute end plus its last bucket's reduction (overlapped; all of them when they wait for
  // the backward), nor earlier than they did (a queue that bounded the step does not move); the optimizer and
  // everything after it move with the latest rank.
  void ApplyContention() {
    const double c = prog_.overlap_contention;
    if (c <= 0) return;
    TimePoint barrier = barrier_;
    std::vector<Duration> extra(units_.size());
    for (int r = 0; r < p_; ++r) {
      TimePoint end = TimePoint::Start(), old_end = TimePoint::Start();
      for (int x = 0; x < replicas_; ++x) {
        Unit& u = U(x, r);
        std::vector<Interval> comm = u.gather_spans;
        comm.insert(comm.end(), dp_[r].spans.begin(), dp_[r].spans.end());
        extra[Process(x, r)] = OverlapOf(u.compute_spans, std::move(comm)) * (c / (1 + c));
        end = std::max(end, u.last_compute_end + extra[Process(x, r)]);
        old_end = std::max(old_end, u.last_compute_end);
      }
      const DpState& dp = dp_[r];
      if (dp.spans.empty()) {
        barrier = std::max(barrier, end);
      } else if (prog_.overlap_grad_reduce) {
        barrier = std::max({barrier, dp.reduced_at, end + dp.last_reduce});
      } else {
        barrier = std::max(barrier, end + (dp.reduced_at - old_end));
      }
    }
    const Duration shift = barrier - barrier_;
    barrier_ = barrier;
    for (int x = 0; x < replicas_; ++x)
      for (int r = 0; r < p_; ++r) {
        Unit& u = U(x, r);
        u.stretch = extra[Process(x, r)];
        u.t.contention += u.stretch;
        u.t.dp_exposed = barrier - (u.last_compute_end + u.stretch);
        u.t.finish += shift;
      }
  }

  StepTimeline Summarize() {
    StepTimeline out;
    out.events = q_.executed();
    Duration worst_end = Duration::Zero();
    for (int x = 0; x < replicas_; ++x) {
      Duration end = Duration::Zero();
      for (int r = 0; r < p_; ++r) {
        Unit& u = U(x, r);
        assert(u.compute_done);
        const Duration busy = u.t.compute + u.t.tp_comm + u.t.cp_comm + u.t.ep_comm;
        u.t.bubble = (u.last_compute_end - TimePoint::Start()) - busy - u.t.gather_wait;
        const Duration compute_end = (u.last_compute_end + u.stretch) - TimePoint::Start();
        end = std::max(end, compute_end);
        if (u.t.finish > out.step_time || (u.t.finish == out.step_time && compute_end > worst_end)) {
          out.step_time = u.t.finish;
          out.critical_rank = r;
          out.critical_replica = x;
          worst_end = compute_end;
        }
      }
      out.replica_compute_end.push_back(end);
    }
    for (int r = 0; r < p_; ++r) out.ranks.push_back(U(out.critical_replica, r).t);
    return out;
  }

  const StepProgram& prog_;
  report::Sink* sink_;
  const int p_, v_, replicas_;
  int m_ = 1;
  EventQueue q_;
  std::vector<Unit> units_;
  std::vector<DpState> dp_;
  std::vector<bool> fwd_arrived_, bwd_arrived_;
  int ranks_reduced_ = 0;
  TimePoint barrier_;  // when every rank's gradients were reduced (the optimizer's start)
};

}  // namespace

StepTimeline SimulateStep(const StepProgram& program, report::Sink* sink) {
  return StepRun(program, sink).Run();
}

}  // namespace dlsim::train
