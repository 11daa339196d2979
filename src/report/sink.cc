#include "dlsim/report/sink.h"

#include <cassert>
#include <utility>

namespace dlsim::report {

Sink& SinkSet::Add(std::unique_ptr<Sink> sink) {
  assert(sink != nullptr);
  Sink& ref = *sink;
  owned_.push_back(std::move(sink));
  sinks_.push_back(&ref);
  return ref;
}

Status SinkSet::Begin(const RunInfo& run) {
  for (Sink* s : sinks_) DLSIM_RETURN_IF_ERROR(s->Begin(run));
  return Status::Ok();
}

void SinkSet::OnProcessName(const ProcessName& e) {
  for (Sink* s : sinks_) s->OnProcessName(e);
}
void SinkSet::OnThreadName(const ThreadName& e) {
  for (Sink* s : sinks_) s->OnThreadName(e);
}
void SinkSet::OnSpan(const SpanEvent& e) {
  for (Sink* s : sinks_) s->OnSpan(e);
}
void SinkSet::OnCounter(const CounterEvent& e) {
  for (Sink* s : sinks_) s->OnCounter(e);
}
void SinkSet::OnInstant(const InstantEvent& e) {
  for (Sink* s : sinks_) s->OnInstant(e);
}

Status SinkSet::Finish() {
  Status first;
  for (Sink* s : sinks_) {
    Status st = s->Finish();
    if (first.ok() && !st.ok()) first = std::move(st);
  }
  return first;
}

}  // namespace dlsim::report
