#include "dlsim/report/timeline_recorder.h"

#include <algorithm>
#include <set>
#include <tuple>

#include "dlsim/report/format.h"

namespace dlsim::report {

void TimelineRecorder::OnProcessName(const ProcessName& e) { processes_[e.process] = e; }

void TimelineRecorder::OnThreadName(const ThreadName& e) { threads_[{e.process, e.thread}] = e; }

void TimelineRecorder::OnSpan(const SpanEvent& e) {
  ++spans_seen_;
  if (spans_.size() < max_spans_) spans_.push_back(e);
}

void TimelineRecorder::OnCounter(const CounterEvent& e) {
  Thinned& t = counters_[{e.name, e.process}];
  if (t.seen++ % t.stride != 0) return;
  t.points.emplace_back(e.time.SinceStart().ToSeconds(), e.value);
  if (t.points.size() < max_points_) return;
  // Keep every other sample; from now on only every (2 x stride)-th sample is offered.
  size_t kept = 0;
  for (size_t i = 0; i < t.points.size(); i += 2) t.points[kept++] = t.points[i];
  t.points.resize(kept);
  t.stride *= 2;
}

std::vector<std::pair<int, int>> TimelineRecorder::Lanes() const {
  std::set<std::pair<int, int>> used;
  for (const SpanEvent& s : spans_) used.insert({s.process, s.thread});
  std::vector<std::pair<int, int>> lanes(used.begin(), used.end());
  auto key = [this](const std::pair<int, int>& l) {
    const auto p = processes_.find(l.first);
    const auto t = threads_.find(l);
    return std::make_tuple(p == processes_.end() ? l.first : p->second.sort_index, l.first,
                           t == threads_.end() ? l.second : t->second.sort_index, l.second);
  };
  std::stable_sort(lanes.begin(), lanes.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  return lanes;
}

std::string TimelineRecorder::LaneName(int process, int thread) const {
  const auto p = processes_.find(process);
  const auto t = threads_.find({process, thread});
  std::string name = p == processes_.end() ? "process " + std::to_string(process) : p->second.name;
  if (t != threads_.end()) return name + " / " + t->second.name;
  return name + " / " + std::to_string(thread);
}

std::string TimelineRecorder::TimelineSvg(const ChartSpec& spec, double scale, size_t max_lanes) const {
  std::vector<std::pair<int, int>> lanes = Lanes();
  if (lanes.size() > max_lanes) lanes.resize(max_lanes);
  std::map<std::pair<int, int>, int> index;
  std::vector<std::string> names;
  for (const auto& l : lanes) {
    index[l] = static_cast<int>(names.size());
    names.push_back(LaneName(l.first, l.second));
  }
  std::vector<TimelineSpan> out;
  out.reserve(spans_.size());
  for (const SpanEvent& s : spans_) {
    const auto it = index.find({s.process, s.thread});
    if (it == index.end()) continue;
    const double start = s.start.SinceStart().ToSeconds() * scale;
    const double end = (s.start + s.duration).SinceStart().ToSeconds() * scale;
    out.push_back({it->second, start, end, s.category.empty() ? s.name : s.category,
                   s.name + " (" + FormatDuration(s.duration) + ")"});
  }
  return TimelineChart(spec, names, out);
}

std::vector<Series> TimelineRecorder::Counters(const std::string& name, double scale) const {
  std::vector<Series> out;
  for (const auto& [key, t] : counters_) {
    if (key.first != name) continue;
    const auto p = processes_.find(key.second);
    Series s{.name = p == processes_.end() ? "process " + std::to_string(key.second) : p->second.name,
             .step = true};
    for (const auto& [x, y] : t.points) s.x.push_back(x * scale), s.y.push_back(y);
    out.push_back(std::move(s));
  }
  return out;
}

std::string TimelineRecorder::Caption(size_t max_lanes) const {
  std::string out;
  if (spans_seen_ > spans_.size()) {
    out = "the first " + FormatCount(static_cast<int64_t>(spans_.size())) + " of " +
          FormatCount(static_cast<int64_t>(spans_seen_)) + " spans";
  }
  const size_t lanes = Lanes().size();
  if (lanes > max_lanes) {
    if (!out.empty()) out += "; ";
    out += std::to_string(max_lanes) + " of " + std::to_string(lanes) + " lanes";
  }
  return out;
}

}  // namespace dlsim::report
