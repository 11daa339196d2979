#include "dlsim/core/event_queue.h"

#include <algorithm>
#include <cassert>

namespace dlsim {

namespace {
constexpr size_t kCompactSlack = 1024;  // dead entries tolerated beyond the live ones
}  // namespace

EventId EventQueue::Schedule(TimePoint at, Callback cb) {
  assert(at >= now_);
  uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
    callbacks_[slot] = std::move(cb);
  } else {
    slot = static_cast<uint32_t>(callbacks_.size());
    callbacks_.push_back(std::move(cb));
    slot_seq_.push_back(0);
  }
  uint64_t seq = next_seq_++;
  slot_seq_[slot] = seq;
  PushHeap(Entry{at.ToNanos(), seq, slot});
  ++live_;
  return EventId{seq, slot};
}

bool EventQueue::Cancel(EventId id) {
  if (id.seq == 0 || id.slot >= slot_seq_.size() || slot_seq_[id.slot] != id.seq) return false;
  slot_seq_[id.slot] = 0;  // cancelled; the heap entry is dropped lazily, then the slot freed
  callbacks_[id.slot] = nullptr;
  --live_;
  if (heap_.size() > 2 * live_ + kCompactSlack) Compact();
  return true;
}

// Cancelled entries stay in the heap until they reach the top; when they outnumber the live ones
// (a cluster's preempted jobs leave their far-future completions behind), every pop sifts through
// them. Compact drops them in one sweep: O(n log n) once at least n/2 cancellations made them dead,
// so O(log n) per cancellation. The pop order is unchanged: it is (time, seq) alone, and a sorted
// array is a heap.
void EventQueue::Compact() {
  size_t kept = 0;
  for (const Entry& e : heap_) {
    if (slot_seq_[e.slot] == e.seq)
      heap_[kept++] = e;
    else
      free_slots_.push_back(e.slot);  // cancelled: its slot was held back for this entry
  }
  heap_.resize(kept);
  std::sort(heap_.begin(), heap_.end(), Before);
}

// The heap is 4-ary rather than binary: half as many levels, and the four children of a node
// sit next to each other in memory, so a pop touches fewer cache lines (docs/performance.md).
// Both sifts move a hole instead of swapping, so each level costs one copy.
namespace {
constexpr size_t kArity = 4;
}  // namespace

void EventQueue::PushHeap(Entry e) {
  size_t i = heap_.size();
  heap_.push_back(e);
  while (i > 0) {
    const size_t parent = (i - 1) / kArity;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void EventQueue::PopTop() {
  const Entry last = heap_.back();
  heap_.pop_back();
  const size_t n = heap_.size();
  if (n == 0) return;
  size_t i = 0;
  while (true) {
    const size_t first = kArity * i + 1;
    if (first >= n) break;
    size_t best;
    if (first + kArity <= n) {
      // A tournament over the four children: two independent comparisons, then one.
      const size_t a = first + Before(heap_[first + 1], heap_[first]);
      const size_t b = first + 2 + Before(heap_[first + 3], heap_[first + 2]);
      best = Before(heap_[b], heap_[a]) ? b : a;
    } else {
      best = first;
      for (size_t c = first + 1; c < n; ++c) best = Before(heap_[c], heap_[best]) ? c : best;
    }
    if (!Before(heap_[best], last)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = last;
}

void EventQueue::DropCancelledTop() {
  while (!heap_.empty() && slot_seq_[heap_.front().slot] != heap_.front().seq) {
    uint32_t slot = heap_.front().slot;
    PopTop();
    // The slot was released at cancel time only logically; free it now.
    if (slot_seq_[slot] == 0) free_slots_.push_back(slot);
  }
}

std::optional<TimePoint> EventQueue::NextTime() {
  DropCancelledTop();
  if (heap_.empty()) return std::nullopt;
  return TimePoint::FromNanos(heap_.front().time_ns);
}

bool EventQueue::Step() {
  DropCancelledTop();
  if (heap_.empty()) return false;
  Entry top = heap_.front();
  PopTop();
  now_ = TimePoint::FromNanos(top.time_ns);
  Callback cb = std::move(callbacks_[top.slot]);
  callbacks_[top.slot] = nullptr;
  slot_seq_[top.slot] = 0;
  free_slots_.push_back(top.slot);
  --live_;
  ++executed_;
  cb();
  return true;
}

void EventQueue::RunUntil(TimePoint until) {
  while (true) {
    auto next = NextTime();
    if (!next || *next > until) break;
    Step();
  }
  if (now_ < until) now_ = until;
}

}  // namespace dlsim
