#include "dlsim/core/event_queue.h"

#include <algorithm>
#include <cassert>

namespace dlsim {

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
  heap_.push_back(Entry{at.ToNanos(), seq, slot});
  std::push_heap(heap_.begin(), heap_.end(), Later);
  ++live_;
  return EventId{seq, slot};
}

bool EventQueue::Cancel(EventId id) {
  if (id.seq == 0 || id.slot >= slot_seq_.size() || slot_seq_[id.slot] != id.seq) return false;
  slot_seq_[id.slot] = 0;  // cancelled; the heap entry is dropped lazily, then the slot freed
  callbacks_[id.slot] = nullptr;
  --live_;
  return true;
}

void EventQueue::PopTop() {
  std::pop_heap(heap_.begin(), heap_.end(), Later);
  heap_.pop_back();
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
