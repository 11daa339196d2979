// Sinks receive the typed events of a run (events.h) and write them somewhere: a trace file,
// a JSON report, a terminal summary. Every sink has the same lifecycle:
//
//   Begin(run)  once, before any event; may fail (for example a header cannot be written);
//   On...(e)    any number of events, in the order the simulation produces them;
//   Finish()    once; completes the output (closing brackets, flushing) and reports any
//               write error seen on the way.
//
// Calling an event method outside Begin..Finish is a bug (asserted in debug builds).
//
//   dlsim::report::ChromeTraceSink trace(trace_stream);
//   dlsim::report::RecordingSink recording;
//   dlsim::report::SinkSet sinks;
//   sinks.Add(trace);                 // borrowed: `trace` must outlive `sinks`
//   sinks.Add(std::make_unique<dlsim::report::NullSink>());   // owned
//   DLSIM_RETURN_IF_ERROR(sinks.Begin(run_info));
//   sinks.OnSpan(span);
//   DLSIM_RETURN_IF_ERROR(sinks.Finish());
//
// Sinks are not thread-safe: one simulation drives its sinks from one thread.
#ifndef DLSIM_REPORT_SINK_H_
#define DLSIM_REPORT_SINK_H_

#include <memory>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/report/events.h"

namespace dlsim::report {

class Sink {
 public:
  virtual ~Sink() = default;

  // Starts the output. Returns an error when it cannot be started.
  virtual Status Begin(const RunInfo& run) = 0;
  virtual void OnProcessName(const ProcessName& e) = 0;
  virtual void OnThreadName(const ThreadName& e) = 0;
  virtual void OnSpan(const SpanEvent& e) = 0;
  virtual void OnCounter(const CounterEvent& e) = 0;
  virtual void OnInstant(const InstantEvent& e) = 0;
  // Completes the output. Returns an error if any write failed since Begin().
  virtual Status Finish() = 0;
};

// Discards every event. Begin() and Finish() always succeed.
class NullSink final : public Sink {
 public:
  Status Begin(const RunInfo&) override { return Status::Ok(); }
  void OnProcessName(const ProcessName&) override {}
  void OnThreadName(const ThreadName&) override {}
  void OnSpan(const SpanEvent&) override {}
  void OnCounter(const CounterEvent&) override {}
  void OnInstant(const InstantEvent&) override {}
  Status Finish() override { return Status::Ok(); }
};

// Fans every call out to its sinks, in the order they were added. Begin() stops at the first
// sink that fails and returns its error; Finish() finishes every sink and returns the first
// error. An empty SinkSet behaves like a NullSink.
class SinkSet final : public Sink {
 public:
  // Borrows `sink`; it must outlive this SinkSet.
  void Add(Sink& sink) { sinks_.push_back(&sink); }
  // Takes ownership of `sink` (non-null) and returns it.
  Sink& Add(std::unique_ptr<Sink> sink);
  size_t size() const { return sinks_.size(); }

  Status Begin(const RunInfo& run) override;
  void OnProcessName(const ProcessName& e) override;
  void OnThreadName(const ThreadName& e) override;
  void OnSpan(const SpanEvent& e) override;
  void OnCounter(const CounterEvent& e) override;
  void OnInstant(const InstantEvent& e) override;
  Status Finish() override;

 private:
  std::vector<Sink*> sinks_;                  // all sinks, in call order
  std::vector<std::unique_ptr<Sink>> owned_;  // the subset this set owns
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_SINK_H_
