#include "dlsim/report/chrome_trace_sink.h"

#include <cassert>

#include "json_text.h"

namespace dlsim::report {
namespace {

using internal::AppendArgsObject;
using internal::AppendJsonString;
using internal::AppendMicros;

// The buffer is handed to the stream once it holds this many bytes.
constexpr size_t kFlushBytes = 1 << 16;

// Trace ids are the event ids plus one: Perfetto treats pid 0 (and tid 0) as the kernel's
// idle task, so a synthesized trace should start at 1 (google/perfetto#394).
int64_t TraceId(int id) { return int64_t{id} + 1; }

std::string_view ScopeCode(InstantScope scope) {
  switch (scope) {
    case InstantScope::kThread:
      return "t";
    case InstantScope::kProcess:
      return "p";
    case InstantScope::kGlobal:
      return "g";
  }
  return "t";
}

// Appends ,"name":..[,"cat":..][,"args":{..}]; empty category and args are left out.
void AppendNameCategoryArgs(std::string& buf, std::string_view name, std::string_view category,
                            const Args& args) {
  buf.append(",\"name\":");
  AppendJsonString(buf, name);
  if (!category.empty()) {
    buf.append(",\"cat\":");
    AppendJsonString(buf, category);
  }
  if (!args.empty()) {
    buf.append(",\"args\":");
    AppendArgsObject(buf, args);
  }
}

}  // namespace

Status ChromeTraceSink::Begin(const RunInfo& run) {
  assert(!begun_);
  begun_ = true;
  run_ = run;
  if (!out_) return Error::Internal("trace stream is not writable");
  buf_.reserve(kFlushBytes + 4096);
  buf_.append("{\"traceEvents\":[");
  return Status::Ok();
}

void ChromeTraceSink::StartEvent(std::string_view ph, int process) {
  assert(begun_ && !finished_);
  buf_.append(events_written_ == 0 ? "\n" : ",\n");
  buf_.append("{\"ph\":\"");
  buf_.append(ph);
  buf_.append("\",\"pid\":");
  internal::AppendInt(buf_, TraceId(process));
}

void ChromeTraceSink::EndEvent() {
  buf_.push_back('}');
  ++events_written_;
  if (buf_.size() >= kFlushBytes) FlushBuffer();
}

void ChromeTraceSink::FlushBuffer() {
  out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  buf_.clear();
}

void ChromeTraceSink::WriteMetadata(std::string_view name, int process, const int* thread,
                                    std::string_view key, const ArgValue& value) {
  StartEvent("M", process);
  if (thread != nullptr) {
    buf_.append(",\"tid\":");
    internal::AppendInt(buf_, TraceId(*thread));
  }
  buf_.append(",\"name\":");
  AppendJsonString(buf_, name);
  buf_.append(",\"args\":");
  AppendArgsObject(buf_, Args{{std::string(key), value}});
  EndEvent();
}

void ChromeTraceSink::OnProcessName(const ProcessName& e) {
  WriteMetadata("process_name", e.process, nullptr, "name", e.name);
  WriteMetadata("process_sort_index", e.process, nullptr, "sort_index", int64_t{e.sort_index});
}

void ChromeTraceSink::OnThreadName(const ThreadName& e) {
  WriteMetadata("thread_name", e.process, &e.thread, "name", e.name);
  WriteMetadata("thread_sort_index", e.process, &e.thread, "sort_index", int64_t{e.sort_index});
}

void ChromeTraceSink::OnSpan(const SpanEvent& e) {
  StartEvent("X", e.process);
  buf_.append(",\"tid\":");
  internal::AppendInt(buf_, TraceId(e.thread));
  buf_.append(",\"ts\":");
  AppendMicros(buf_, e.start.ToNanos());
  buf_.append(",\"dur\":");
  AppendMicros(buf_, e.duration.ToNanos());
  AppendNameCategoryArgs(buf_, e.name, e.category, e.args);
  EndEvent();
}

void ChromeTraceSink::OnCounter(const CounterEvent& e) {
  StartEvent("C", e.process);
  buf_.append(",\"ts\":");
  AppendMicros(buf_, e.time.ToNanos());
  buf_.append(",\"name\":");
  AppendJsonString(buf_, e.name);
  buf_.append(",\"args\":{\"value\":");
  internal::AppendJsonDouble(buf_, e.value);
  buf_.push_back('}');
  EndEvent();
}

void ChromeTraceSink::OnInstant(const InstantEvent& e) {
  StartEvent("i", e.process);
  buf_.append(",\"tid\":");
  internal::AppendInt(buf_, TraceId(e.thread));
  buf_.append(",\"ts\":");
  AppendMicros(buf_, e.time.ToNanos());
  buf_.append(",\"s\":\"");
  buf_.append(ScopeCode(e.scope));
  buf_.push_back('"');
  AppendNameCategoryArgs(buf_, e.name, e.category, e.args);
  EndEvent();
}

Status ChromeTraceSink::Finish() {
  assert(begun_ && !finished_);
  finished_ = true;
  buf_.append("\n],\"displayTimeUnit\":\"ns\",\"otherData\":");
  Args other{{"name", run_.name}, {"command", run_.command}};
  other.insert(other.end(), run_.metadata.begin(), run_.metadata.end());
  AppendArgsObject(buf_, other);
  buf_.append("}\n");
  FlushBuffer();
  out_.flush();
  if (!out_) return Error::Internal("writing the trace failed (disk full or stream closed?)");
  return Status::Ok();
}

}  // namespace dlsim::report
