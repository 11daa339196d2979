// The typed events that simulators publish to sinks. Models never print: they build these
// plain values and hand them to a Sink (see sink.h), which decides how they are written.
//
// Identity: a `process` is a node or a rank group, a `thread` is one stream inside it (for
// example "gpu3 compute" or "gpu3 tp-comm"). Both are small integers chosen by the publisher;
// give them names with ProcessName / ThreadName events. Counting from 0 is fine: writers map
// ids to what their format needs. Times are simulated TimePoints and
// Durations (integer nanoseconds).
//
//   dlsim::report::SpanEvent span{.process = 0, .thread = 3, .name = "fwd L0",
//                                 .category = "compute", .start = t0, .duration = d,
//                                 .args = {{"flops", 1.2e12}, {"microbatch", int64_t{4}}}};
//   sink.OnSpan(span);
//
// All types are plain values; thread-safe as values.
#ifndef DLSIM_REPORT_EVENTS_H_
#define DLSIM_REPORT_EVENTS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::report {

// The value of an event argument. Integers and doubles stay distinct so that writers can
// print integers exactly. Non-finite doubles are written as null by JSON writers.
using ArgValue = std::variant<bool, int64_t, double, std::string>;
// Ordered (name, value) pairs; writers keep this order, so output is deterministic.
using Args = std::vector<std::pair<std::string, ArgValue>>;

// Facts about one run, given to every sink at Begin().
struct RunInfo {
  std::string name;       // e.g. the scenario name
  std::string command{};  // e.g. "train"
  Args metadata{};        // free-form (version, seed, scenario file, ...), kept in order
};

// Names a process (a node or rank group). sort_index orders processes in trace viewers.
struct ProcessName {
  int process = 0;
  std::string name{};
  int sort_index = 0;
};

// Names a thread (a stream) inside a process. sort_index orders threads within the process.
struct ThreadName {
  int process = 0;
  int thread = 0;
  std::string name{};
  int sort_index = 0;
};

// An activity with a start and a duration on one stream (a kernel, a collective, a bubble).
struct SpanEvent {
  int process = 0;
  int thread = 0;
  std::string name{};
  std::string category{};
  TimePoint start{};
  Duration duration{};
  Args args{};
};

// A sampled value of a named series in a process (memory in use, queue length, ...).
struct CounterEvent {
  int process = 0;
  std::string name{};
  TimePoint time{};
  double value = 0.0;
};

// The scope an instant event marks: one thread, a whole process, or the whole run.
enum class InstantScope { kThread, kProcess, kGlobal };

// A point in time of note (a step boundary, a request arrival, a failure).
struct InstantEvent {
  int process = 0;
  int thread = 0;
  std::string name{};
  std::string category{};
  TimePoint time{};
  InstantScope scope = InstantScope::kThread;
  Args args{};
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_EVENTS_H_
