// A Sink that keeps a bounded picture of a run for the HTML report: the first `max_spans`
// spans (the start of the run as a coherent timeline) and every counter series thinned to at
// most `max_points` samples (when a series fills up, every other sample is dropped and the
// stride doubles, so the kept samples stay evenly spread and deterministic). Memory stays
// bounded whatever the run's length.
//
//   report::TimelineRecorder rec;
//   sinks.Add(rec);                       // beside a trace file, for example
//   ... run, Begin/Finish ...
//   page.AddChart("Timeline", rec.TimelineSvg({.title = "One step", .x = {"time", "ms"}}, 1e3, 48));
//
// Not thread-safe (as every sink).
#ifndef DLSIM_REPORT_TIMELINE_RECORDER_H_
#define DLSIM_REPORT_TIMELINE_RECORDER_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/report/sink.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::report {

class TimelineRecorder final : public Sink {
 public:
  explicit TimelineRecorder(size_t max_spans = 20000, size_t max_points = 2048)
      : max_spans_(max_spans), max_points_(max_points < 2 ? 2 : max_points) {}

  Status Begin(const RunInfo&) override { return Status::Ok(); }
  void OnProcessName(const ProcessName& e) override;
  void OnThreadName(const ThreadName& e) override;
  void OnSpan(const SpanEvent& e) override;
  void OnCounter(const CounterEvent& e) override;
  void OnInstant(const InstantEvent&) override {}
  Status Finish() override { return Status::Ok(); }

  // The kept spans as a timeline: one lane per (process, thread) that has spans, ordered by
  // the processes' and threads' sort indices, at most `max_lanes` of them; times in seconds
  // times `scale` (1e3 for milliseconds). The caption from Caption() says what was left out.
  std::string TimelineSvg(const ChartSpec& spec, double scale, size_t max_lanes) const;
  // Every counter series named `name`, one per process ("<process name>"), as step series
  // with x in seconds times `scale`.
  std::vector<Series> Counters(const std::string& name, double scale) const;
  // "first 20,000 of 81,920 spans; 48 of 96 lanes" or "" when nothing was left out.
  std::string Caption(size_t max_lanes) const;

  uint64_t spans_seen() const { return spans_seen_; }

 private:
  struct Thinned {
    std::vector<std::pair<double, double>> points;  // (seconds, value)
    uint64_t stride = 1, seen = 0;
  };
  std::vector<std::pair<int, int>> Lanes() const;  // (process, thread), display order
  std::string LaneName(int process, int thread) const;

  size_t max_spans_, max_points_;
  std::map<int, ProcessName> processes_;
  std::map<std::pair<int, int>, ThreadName> threads_;
  std::vector<SpanEvent> spans_;
  uint64_t spans_seen_ = 0;
  std::map<std::pair<std::string, int>, Thinned> counters_;  // (name, process)
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_TIMELINE_RECORDER_H_
