// A Sink that keeps every event in memory, for tests (a fake) and for small runs that want
// to post-process their events.
//
//   dlsim::report::RecordingSink rec;
//   RunSomething(rec);
//   EXPECT_EQ(rec.spans().size(), 3u);
//   EXPECT_EQ(rec.calls(), (std::vector<std::string>{"Begin", "OnSpan", "Finish"}));
//
// Memory grows with the number of events; do not use it for large traces. Not thread-safe.
#ifndef DLSIM_REPORT_RECORDING_SINK_H_
#define DLSIM_REPORT_RECORDING_SINK_H_

#include <string>
#include <vector>

#include "dlsim/report/sink.h"

namespace dlsim::report {

class RecordingSink final : public Sink {
 public:
  Status Begin(const RunInfo& run) override;
  void OnProcessName(const ProcessName& e) override;
  void OnThreadName(const ThreadName& e) override;
  void OnSpan(const SpanEvent& e) override;
  void OnCounter(const CounterEvent& e) override;
  void OnInstant(const InstantEvent& e) override;
  Status Finish() override;

  const RunInfo& run() const { return run_; }
  bool begun() const { return begun_; }
  bool finished() const { return finished_; }
  const std::vector<ProcessName>& process_names() const { return process_names_; }
  const std::vector<ThreadName>& thread_names() const { return thread_names_; }
  const std::vector<SpanEvent>& spans() const { return spans_; }
  const std::vector<CounterEvent>& counters() const { return counters_; }
  const std::vector<InstantEvent>& instants() const { return instants_; }
  // The method names called on this sink, in order ("Begin", "OnSpan", ..., "Finish").
  const std::vector<std::string>& calls() const { return calls_; }

 private:
  RunInfo run_;
  bool begun_ = false;
  bool finished_ = false;
  std::vector<ProcessName> process_names_;
  std::vector<ThreadName> thread_names_;
  std::vector<SpanEvent> spans_;
  std::vector<CounterEvent> counters_;
  std::vector<InstantEvent> instants_;
  std::vector<std::string> calls_;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_RECORDING_SINK_H_
