#include "dlsim/train/step_sim.h"

#include <algorithm>
#include <cassert>
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

class StepRun {
 public:
  StepRun(const StepProgram& prog, report::Sink* sink)
      : prog_(prog), sink_(sink), p_(prog.shape.stages), v_(prog.shape.chunks), m_(prog.shape.micro_batches) {
    ranks_.resize(p_);
    const size_t n = static_cast<size_t>(p_) * v_ * m_;
    fwd_arrived_.assign(n, false);
    bwd_arrived_.assign(n, false);
    for (int r = 0; r < p_; ++r) {
      auto& rs = ranks_[r];
      rs.last_bwd_of_chunk.assign(v_, -1);
      const auto& order = prog_.order[r];
      for (int i = 0; i < static_cast<int>(order.size()); ++i)
        if (!order[i].forward) rs.last_bwd_of_chunk[order[i].chunk] = i;
      rs.buckets_left = static_cast<int>(prog_.buckets.empty() ? 0 : prog_.buckets[r].size());
    }
  }

  StepTimeline Run() {
    NameStreams();
    for (int r = 0; r < p_; ++r) {
      if (Zero3(r) > Duration::Zero()) PrefetchGather(r, 0);
      TryStart(r);
    }
    q_.Run();
    return Summarize();
  }

 private:
  struct RankState {
    size_t next = 0;              // next task index in the order
    bool busy = false;
    FifoStream p2p, dp;
    std::vector<int> last_bwd_of_chunk;
    int buckets_left = 0;
    bool compute_done = false;
    TimePoint first_start, last_compute_end;
    bool started = false;
    std::vector<TimePoint> gather_ready;  // ZeRO-3: per task index
    int in_flight = 0;
    RankTimeline t;
  };

  size_t Key(int vs, int mb) const { return static_cast<size_t>(vs) * m_ + mb; }
  Duration Zero3(int r) const { return prog_.zero3_gather.empty() ? Duration::Zero() : prog_.zero3_gather[r]; }

  void Span(int rank, int stream, std::string name, const char* cat, TimePoint start, Duration d) {
    if (!sink_ || d <= Duration::Zero()) return;
    report::SpanEvent e;
    e.process = rank;
    e.thread = rank * kStreamsPerRank + stream;
    e.name = std::move(name);
    e.category = cat;
    e.start = start;
    e.duration = d;
    sink_->OnSpan(e);
  }

  void NameStreams() {
    if (!sink_) return;
    static const char* kNames[] = {"compute", "p2p", "dp-comm"};
    for (int r = 0; r < p_; ++r) {
      sink_->OnProcessName({r, "pipeline rank " + std::to_string(r), r});
      for (int s = 0; s < kStreamsPerRank; ++s)
        sink_->OnThreadName({r, r * kStreamsPerRank + s, kNames[s], s});
    }
  }

  bool Ready(int r, const PipeTask& t, size_t index) const {
    const int vs = VirtualStage(r, t.chunk, p_);
    const auto& rs = ranks_[r];
    if (!rs.gather_ready.empty() && index < rs.gather_ready.size() && rs.gather_ready[index] > q_.Now())
      return false;
    if (Zero3(r) > Duration::Zero() && index >= rs.gather_ready.size()) return false;
    if (t.forward) return vs == 0 || fwd_arrived_[Key(vs, t.micro_batch)];
    return vs == p_ * v_ - 1 || bwd_arrived_[Key(vs, t.micro_batch)];
  }

  void PrefetchGather(int r, size_t index) {
    auto& rs = ranks_[r];
    if (index >= prog_.order[r].size() || index < rs.gather_ready.size()) return;
    TimePoint start = rs.dp.Enqueue(q_.Now(), Zero3(r));
    rs.gather_ready.push_back(start + Zero3(r));
    Span(r, kDpStream, "zero3 gather", "dp", start, Zero3(r));
    q_.Schedule(start + Zero3(r), [this, r] { TryStart(r); });
  }

  void TryStart(int r) {
    auto& rs = ranks_[r];
    const auto& order = prog_.order[r];
    if (rs.busy || rs.next >= order.size()) return;
    const size_t index = rs.next;
    const PipeTask task = order[index];
    if (!Ready(r, task, index)) return;
    rs.busy = true;
    rs.next++;
    const TimePoint now = q_.Now();
    if (!rs.started) {
      rs.started = true;
      rs.first_start = now;
    }
    const TaskCost c = prog_.task_cost(r, task);
    const Duration d = c.Total();
    rs.t.compute += c.compute;
    rs.t.recompute += c.recompute;
    rs.t.tp_comm += c.tp_comm;
    rs.t.cp_comm += c.cp_comm;
    if (task.forward) rs.t.peak_in_flight = std::max(rs.t.peak_in_flight, ++rs.in_flight);
    else --rs.in_flight;
    Span(r, kComputeStream,
         std::string(task.forward ? "F" : "B") + std::to_string(task.micro_batch) +
             (v_ > 1 ? "." + std::to_string(task.chunk) : ""),
         task.forward ? "forward" : "backward", now, d);
    if (Zero3(r) > Duration::Zero()) PrefetchGather(r, index + 1);
    // Gradient buckets of this chunk become ready during its last backward.
    if (!task.forward && prog_.overlap_grad_reduce && !prog_.buckets.empty() &&
        rs.last_bwd_of_chunk[task.chunk] == static_cast<int>(index)) {
      for (const GradBucket& b : prog_.buckets[r]) {
        if (b.chunk != task.chunk) continue;
        q_.Schedule(now + d * b.ready_fraction, [this, r, b] { ReduceBucket(r, b); });
      }
    }
    q_.Schedule(now + d, [this, r, task] { Finish(r, task); });
  }

  void Finish(int r, const PipeTask& task) {
    auto& rs = ranks_[r];
    rs.busy = false;
    const TimePoint now = q_.Now();
    const int vs = VirtualStage(r, task.chunk, p_);
    if (task.forward && vs < p_ * v_ - 1) Send(r, vs + 1, task.micro_batch, true);
    if (!task.forward && vs > 0) Send(r, vs - 1, task.micro_batch, false);
    if (rs.next >= prog_.order[r].size()) {
      rs.compute_done = true;
      rs.last_compute_end = now;
      if (!prog_.overlap_grad_reduce && !prog_.buckets.empty())
        for (const GradBucket& b : prog_.buckets[r]) ReduceBucket(r, b);
      MaybeRankReduced(r);
    }
    TryStart(r);
  }

  void Send(int r, int to_vs, int mb, bool forward) {
    const int to_rank = to_vs % p_;
    auto deliver = [this, to_vs, to_rank, mb, forward] {
      (forward ? fwd_arrived_ : bwd_arrived_)[Key(to_vs, mb)] = true;
      TryStart(to_rank);
    };
    if (to_rank == r) {  // same rank (p == 1): no transfer
      deliver();
      return;
    }
    TimePoint start = ranks_[r].p2p.Enqueue(q_.Now(), prog_.p2p);
    Span(r, kP2pStream, std::string(forward ? "send act " : "send grad ") + std::to_string(mb), "pp", start,
         prog_.p2p);
    q_.Schedule(start + prog_.p2p, deliver);
  }

  void ReduceBucket(int r, const GradBucket& b) {
    auto& rs = ranks_[r];
    TimePoint start = rs.dp.Enqueue(q_.Now(), b.reduce);
    Span(r, kDpStream, "grad reduce c" + std::to_string(b.chunk), "dp", start, b.reduce);
    q_.Schedule(start + b.reduce, [this, r] {
      ranks_[r].buckets_left--;
      MaybeRankReduced(r);
    });
  }

  // A rank whose compute and reductions are done joins the global gradient-norm barrier;
  // the optimizer starts on every rank once all have arrived.
  void MaybeRankReduced(int r) {
    auto& rs = ranks_[r];
    if (!rs.compute_done || rs.buckets_left > 0) return;
    rs.buckets_left = -1;  // counted once
    if (++ranks_reduced_ < p_) return;
    const TimePoint barrier = q_.Now();
    for (int k = 0; k < p_; ++k) {
      auto& s = ranks_[k];
      s.t.dp_exposed = barrier - s.last_compute_end;
      const Duration opt = prog_.optimizer.empty() ? Duration::Zero() : prog_.optimizer[k];
      const Duration gather = prog_.param_gather.empty() ? Duration::Zero() : prog_.param_gather[k];
      s.t.optimizer = opt;
      s.t.param_gather = gather;
      Span(k, kComputeStream, "optimizer", "optimizer", barrier, opt);
      Span(k, kDpStream, "param gather", "dp", barrier + opt, gather);
      s.t.finish = (barrier + opt + gather) - TimePoint::Start();
    }
  }

  StepTimeline Summarize() {
    StepTimeline out;
    out.events = q_.executed();
    for (int r = 0; r < p_; ++r) {
      auto& rs = ranks_[r];
      assert(rs.compute_done);
      Duration busy = rs.t.compute + rs.t.tp_comm + rs.t.cp_comm;
      rs.t.bubble = (rs.last_compute_end - TimePoint::Start()) - busy;
      out.ranks.push_back(rs.t);
      if (rs.t.finish > out.step_time) {
        out.step_time = rs.t.finish;
        out.critical_rank = r;
      }
    }
    return out;
  }

  const StepProgram& prog_;
  report::Sink* sink_;
  const int p_, v_, m_;
  EventQueue q_;
  std::vector<RankState> ranks_;
  std::vector<bool> fwd_arrived_, bwd_arrived_;
  int ranks_reduced_ = 0;
};

}  // namespace

StepTimeline SimulateStep(const StepProgram& program, report::Sink* sink) {
  return StepRun(program, sink).Run();
}

}  // namespace dlsim::train
