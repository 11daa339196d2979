// Deterministic discrete-event queue: a 4-ary min-heap keyed by (time, sequence number).
//
// Events at the same time fire in the order they were scheduled (FIFO ties), so runs are
// reproducible. Cancellation is lazy: a cancelled id is skipped when it reaches the top.
// The queue knows nothing of GPUs, YAML or traces.
//
//   dlsim::EventQueue q;
//   q.Schedule(dlsim::TimePoint::Start() + dlsim::Micros(5), [&] { ... });
//   while (q.Step()) {}
//
// Not thread-safe; one queue per Simulation.
#ifndef DLSIM_CORE_EVENT_QUEUE_H_
#define DLSIM_CORE_EVENT_QUEUE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "dlsim/core/cancel.h"
#include "dlsim/core/units.h"

namespace dlsim {

// Handle to a scheduled event; valid until the event fires or is cancelled.
struct EventId {
  uint64_t seq = 0;
  uint32_t slot = 0;
};

class EventQueue {
 public:
  using Callback = std::function<void()>;

  // Schedules `cb` at absolute time `at`. Precondition: at >= Now().
  EventId Schedule(TimePoint at, Callback cb);
  // Schedules `cb` at Now() + delay.
  EventId ScheduleAfter(Duration delay, Callback cb) { return Schedule(now_ + delay, std::move(cb)); }
  // Cancels a pending event. Returns false if it already fired, was cancelled, or never existed.
  bool Cancel(EventId id);

  // Pops the next live event, advances Now() to its time and runs it. Returns false when empty.
  bool Step();
  // Runs until empty or until the next event is later than `until` (which then becomes Now()).
  void RunUntil(TimePoint until);
  void Run() {
    while (Step()) {
    }
  }
  // Runs while `keep_going()` holds and events remain, looking every kCancelPollEvents events for a
  // cancellation request (core/cancel.h). Returns false when it stopped for one: the run is incomplete and
  // its caller returns CancelledError(). For the loops that can run long on user input (a cluster trace, a
  // serving workload).
  template <typename KeepGoing>
  bool RunCancellable(KeepGoing keep_going) {
    for (uint64_t n = 1; keep_going() && Step(); ++n)
      if (n % kCancelPollEvents == 0 && CancelRequested()) return false;
    return true;
  }
  bool RunCancellable() {
    return RunCancellable([] { return true; });
  }

  // Time of the next live event, or nullopt when none is pending.
  std::optional<TimePoint> NextTime();
  TimePoint Now() const { return now_; }
  size_t pending() const { return live_; }
  uint64_t executed() const { return executed_; }

 private:
  struct Entry {
    int64_t time_ns;
    uint64_t seq;
    uint32_t slot;
  };
  // Heap order: earlier time first, then lower sequence number (FIFO ties).
  static bool Before(const Entry& a, const Entry& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.seq < b.seq;
  }
  void PushHeap(Entry e);
  void PopTop();
  void DropCancelledTop();
  void Compact();

  std::vector<Entry> heap_;          // 4-ary heap: children of i are 4i+1 .. 4i+4
  std::vector<Callback> callbacks_;  // by slot
  std::vector<uint64_t> slot_seq_;   // seq currently owning a slot, 0 when free
  std::vector<uint32_t> free_slots_;
  TimePoint now_;
  uint64_t next_seq_ = 1;
  size_t live_ = 0;
  uint64_t executed_ = 0;
};

}  // namespace dlsim

#endif  // DLSIM_CORE_EVENT_QUEUE_H_
