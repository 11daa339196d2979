// Writes events as a Chrome trace (the JSON format that Perfetto's UI and chrome://tracing
// open): {"traceEvents":[...],"displayTimeUnit":"ns","otherData":{...}}.
//
//   SpanEvent    -> "X" complete event (ts, dur)
//   CounterEvent -> "C" counter event, args {"value": v}
//   InstantEvent -> "i" instant event with scope "t", "p" or "g"
//   ProcessName  -> "M" process_name and process_sort_index
//   ThreadName   -> "M" thread_name and thread_sort_index
//   RunInfo      -> "otherData" (name, command, then the metadata pairs)
//
// Ids: "pid" is process + 1 and "tid" is thread + 1, because Perfetto treats pid 0 and tid 0
// as the kernel's idle task (google/perfetto#394); names and order come from the metadata.
// Times are microseconds with nanosecond precision, printed exactly (1234567 ns -> 1234.567).
// Events are streamed: each is written (through a small buffer) as it arrives, one per line,
// so memory does not grow with the trace. The text is valid JSON once Finish() has run.
// Output bytes depend only on the events and their order (no hashing, fixed number formats).
//
//   std::ofstream file("step.trace.json");
//   dlsim::report::ChromeTraceSink trace(file);
//   DLSIM_RETURN_IF_ERROR(trace.Begin(run));
//   trace.OnThreadName({.process = 0, .thread = 3, .name = "gpu3 compute", .sort_index = 3});
//   trace.OnSpan(span);
//   DLSIM_RETURN_IF_ERROR(trace.Finish());
//
// Borrows the stream, which must outlive the sink. Not thread-safe.
#ifndef DLSIM_REPORT_CHROME_TRACE_SINK_H_
#define DLSIM_REPORT_CHROME_TRACE_SINK_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "dlsim/report/sink.h"

namespace dlsim::report {

class ChromeTraceSink final : public Sink {
 public:
  explicit ChromeTraceSink(std::ostream& out) : out_(out) {}

  // Writes the opening of the document. Fails if the stream is already in a failed state.
  Status Begin(const RunInfo& run) override;
  void OnProcessName(const ProcessName& e) override;
  void OnThreadName(const ThreadName& e) override;
  void OnSpan(const SpanEvent& e) override;
  void OnCounter(const CounterEvent& e) override;
  void OnInstant(const InstantEvent& e) override;
  // Writes the closing of the document and flushes. Fails if any write failed.
  Status Finish() override;

  // Number of trace events written so far (metadata events included).
  uint64_t events_written() const { return events_written_; }

 private:
  // Starts a new element of traceEvents (separator, '{"ph":"<ph>","pid":<pid>').
  void StartEvent(std::string_view ph, int process);
  // Ends the element and hands the buffer to the stream when it is large.
  void EndEvent();
  void WriteMetadata(std::string_view name, int process, const int* thread, std::string_view key,
                     const ArgValue& value);
  void FlushBuffer();

  std::ostream& out_;
  std::string buf_;
  RunInfo run_;
  bool begun_ = false;
  bool finished_ = false;
  uint64_t events_written_ = 0;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_CHROME_TRACE_SINK_H_
