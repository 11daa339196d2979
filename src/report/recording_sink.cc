#include "dlsim/report/recording_sink.h"

#include <cassert>

namespace dlsim::report {

Status RecordingSink::Begin(const RunInfo& run) {
  assert(!begun_);
  begun_ = true;
  run_ = run;
  calls_.push_back("Begin");
  return Status::Ok();
}

void RecordingSink::OnProcessName(const ProcessName& e) {
  process_names_.push_back(e);
  calls_.push_back("OnProcessName");
}
void RecordingSink::OnThreadName(const ThreadName& e) {
  thread_names_.push_back(e);
  calls_.push_back("OnThreadName");
}
void RecordingSink::OnSpan(const SpanEvent& e) {
  spans_.push_back(e);
  calls_.push_back("OnSpan");
}
void RecordingSink::OnCounter(const CounterEvent& e) {
  counters_.push_back(e);
  calls_.push_back("OnCounter");
}
void RecordingSink::OnInstant(const InstantEvent& e) {
  instants_.push_back(e);
  calls_.push_back("OnInstant");
}

Status RecordingSink::Finish() {
  assert(begun_ && !finished_);
  finished_ = true;
  calls_.push_back("Finish");
  return Status::Ok();
}

}  // namespace dlsim::report
