#include "dlsim/cluster/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "trace_rows.h"

namespace dlsim::cluster {
namespace {

// Seconds of work or time the readers accept: up to ~31 years, so a trace cannot overflow time.
constexpr double kMaxSeconds = kMaxArrivalS;  // durations and the arrival span: the clock bound

// Typed, range-checked cells of one table; errors read "FILE:LINE: column 'c': expected ..., found
// 'x'; allowed: lo..hi".
class Cells {
 public:
  explicit Cells(const CsvTable& t) : t_(t) {}
  Result<double> Number(size_t r, std::string_view col, double lo, double hi, bool integer) const {
    DLSIM_ASSIGN_OR_RETURN(std::string cell, t_.Text(r, col));
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    const bool ok = !cell.empty() && end == cell.c_str() + cell.size() && std::isfinite(v) && v >= lo &&
                    v <= hi && (!integer || v == std::floor(v));
    if (ok) return v;
    return Error::InvalidArgument(fmt::format(
        "{}:{}: column '{}': expected {} in {}..{}, found '{}'", t_.file_name, t_.row_lines[r], col,
        integer ? "an integer" : "a number", FormatNumber(lo, 10), FormatNumber(hi, 10), cell));
  }
  // A time: seconds, or "YYYY-MM-DD HH:MM:SS" (returned as seconds since 1970).
  Result<double> Time(size_t r, std::string_view col) const {
    DLSIM_ASSIGN_OR_RETURN(std::string cell, t_.Text(r, col));
    if (std::optional<int64_t> ts = ParseTimestamp(cell)) return static_cast<double>(*ts);
    if (Number(r, col, 0, 1e11, false).ok()) return Number(r, col, 0, 1e11, false);
    return Error::InvalidArgument(
        fmt::format("{}:{}: column '{}': expected a 'YYYY-MM-DD HH:MM:SS' date (a real calendar date, year "
                    "1970 or later) "
                    "or seconds in 0..{}, found '{}'",
                    t_.file_name, t_.row_lines[r], col, FormatNumber(1e11, 12), cell));
  }
  Result<std::string> Text(size_t r, std::string_view col) const { return t_.Text(r, col); }
  bool Has(std::string_view col) const { return t_.Column(col).ok(); }
  int Line(size_t r) const { return t_.row_lines[r]; }
  const std::string& file() const { return t_.file_name; }

 private:
  const CsvTable& t_;
};

Status RequireColumns(const CsvTable& t, const std::vector<std::string_view>& cols) {
  for (std::string_view c : cols)
    if (!t.Column(c).ok())
      return Error::InvalidArgument(
          fmt::format("{}: missing column '{}'; the header has: {}", t.file_name, c, Join(t.header, ",")));
  return Status::Ok();
}

using Row = internal::TraceRow;

// Whether a row stays: `group` keeps one virtual cluster of philly and helios rows (openb's group
// is its QoS class and is not filtered), and 0 s jobs go when skip_zero_duration is on.
bool Kept(const JobSpec& job, const TraceOptions& o) {
  return (o.group.empty() || o.format == TraceFormat::kOpenb || job.group == o.group) &&
         !(o.skip_zero_duration && job.work == 0);
}

Result<Row> PhillyRow(const Cells& c, size_t r, const TraceOptions& o, const ClusterSpec&) {
  Row row;
  row.line = c.Line(r);
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s, c.Time(r, "timestamp"));
  DLSIM_ASSIGN_OR_RETURN(row.job.work, c.Number(r, "duration", 0, kMaxSeconds, false));
  DLSIM_ASSIGN_OR_RETURN(double gpus, c.Number(r, "num_gpus", 0, kMaxJobGpus, true));
  DLSIM_ASSIGN_OR_RETURN(row.job.group, c.Text(r, "cluster"));
  row.job.gpus = static_cast<int>(gpus);
  row.keep = Kept(row.job, o);
  return row;
}

Result<Row> TiresiasRow(const Cells& c, size_t r, const TraceOptions&, const ClusterSpec&) {
  Row row;
  row.line = c.Line(r);
  DLSIM_ASSIGN_OR_RETURN(double id, c.Number(r, "job_id", 0, 9e15, true));
  DLSIM_ASSIGN_OR_RETURN(double gpus, c.Number(r, "num_gpu", 0, kMaxJobGpus, true));
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s, c.Number(r, "submit_time", 0, kMaxSeconds, false));
  DLSIM_ASSIGN_OR_RETURN(row.job.work, c.Number(r, "duration", 1e-9, kMaxSeconds, false));
  DLSIM_ASSIGN_OR_RETURN(row.job.name, c.Text(r, "model_name"));
  row.job.id = static_cast<int64_t>(id);
  row.has_id = true;
  row.job.gpus = static_cast<int>(gpus);
  return row;
}

Result<Row> HeliosRow(const Cells& c, size_t r, const TraceOptions& o, const ClusterSpec&) {
  Row row;
  row.line = c.Line(r);
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s, c.Time(r, "submit_time"));
  DLSIM_ASSIGN_OR_RETURN(row.job.work, c.Number(r, "duration", 0, kMaxSeconds, false));
  DLSIM_ASSIGN_OR_RETURN(double gpus, c.Number(r, "gpu_num", 0, kMaxJobGpus, true));
  DLSIM_ASSIGN_OR_RETURN(row.job.group, c.Text(r, "vc"));
  DLSIM_ASSIGN_OR_RETURN(row.job.name, c.Text(r, "job_id"));
  row.job.gpus = static_cast<int>(gpus);
  row.keep = Kept(row.job, o);
  return row;
}

// "a|b" -> type ids of the cluster; an unknown name is an error with a suggestion.
Result<std::vector<int>> GpuTypes(const Cells& c, size_t r, std::string_view col,
                                  const ClusterSpec& cluster) {
  DLSIM_ASSIGN_OR_RETURN(std::string cell, c.Text(r, col));
  std::vector<int> out;
  size_t pos = 0;
  while (!cell.empty() && pos <= cell.size()) {
    const size_t bar = std::min(cell.find('|', pos), cell.size());
    const std::string name = cell.substr(pos, bar - pos);
    pos = bar + 1;
    if (std::optional<int> t = cluster.FindGpuType(name)) {
      out.push_back(*t);
      continue;
    }
    return Error::InvalidArgument(fmt::format("{}:{}: column '{}': {}", c.file(), c.Line(r), col,
                                              UnknownNameMessage("GPU type", name, cluster.gpu_types())));
  }
  return out;
}

Result<Row> OpenbRow(const Cells& c, size_t r, const TraceOptions& o, const ClusterSpec& cluster) {
  Row row;
  row.line = c.Line(r);
  DLSIM_ASSIGN_OR_RETURN(row.job.name, c.Text(r, "name"));
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s, c.Number(r, "creation_time", 0, kMaxSeconds, true));
  // A pod never scheduled in the real cluster (Pending) has no scheduled_time: it lived from
  // creation to deletion, and that is the time it asks for here.
  double start = row.arrival_s;
  DLSIM_ASSIGN_OR_RETURN(std::string scheduled, c.Text(r, "scheduled_time"));
  if (!scheduled.empty()) {
    DLSIM_ASSIGN_OR_RETURN(start, c.Number(r, "scheduled_time", 0, kMaxSeconds, true));
  }
  DLSIM_ASSIGN_OR_RETURN(double end, c.Number(r, "deletion_time", 0, kMaxSeconds, true));
  DLSIM_ASSIGN_OR_RETURN(double gpus, c.Number(r, "num_gpu", 0, kMaxJobGpus, true));
  DLSIM_ASSIGN_OR_RETURN(double milli, c.Number(r, "gpu_milli", 0, 1000, true));
  DLSIM_ASSIGN_OR_RETURN(double cpu, c.Number(r, "cpu_milli", 0, 1e12, true));
  DLSIM_ASSIGN_OR_RETURN(double mem, c.Number(r, "memory_mib", 0, 1e12, true));
  if (c.Has("gpu_spec")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.gpu_types, GpuTypes(c, r, "gpu_spec", cluster));
  }
  if (c.Has("qos")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.group, c.Text(r, "qos"));
  }
  if (end < start)
    return Error::InvalidArgument(
        fmt::format("{}:{}: deletion_time {} is before scheduled_time {}", c.file(), row.line, end, start));
  row.job.work = end - start;
  row.job.gpus = static_cast<int>(gpus);
  row.job.gpu_milli = gpus == 1 && milli > 0 ? static_cast<int>(milli) : 1000;
  row.job.cpu_milli = static_cast<int64_t>(cpu);
  row.job.memory_mib = static_cast<int64_t>(mem);
  row.keep = Kept(row.job, o);
  return row;
}

Result<Row> CsvRow(const Cells& c, size_t r, const TraceOptions&, const ClusterSpec& cluster) {
  Row row;
  row.line = c.Line(r);
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s, c.Number(r, "arrival_s", 0, kMaxSeconds, false));
  DLSIM_ASSIGN_OR_RETURN(double gpus, c.Number(r, "gpus", 0, kMaxJobGpus, true));
  row.job.gpus = static_cast<int>(gpus);
  if (c.Has("steps")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.work, c.Number(r, "steps", 1, 1e15, false));
    DLSIM_ASSIGN_OR_RETURN(row.job.speed, c.Text(r, "speed"));
  } else {
    DLSIM_ASSIGN_OR_RETURN(row.job.work, c.Number(r, "duration_s", 1e-9, kMaxSeconds, false));
  }
  if (c.Has("id")) {
    DLSIM_ASSIGN_OR_RETURN(double id, c.Number(r, "id", 0, 9e15, true));
    row.job.id = static_cast<int64_t>(id);
    row.has_id = true;
  }
  if (c.Has("name")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.name, c.Text(r, "name"));
  }
  if (c.Has("group")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.group, c.Text(r, "group"));
  }
  if (c.Has("gpu_type")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.gpu_types, GpuTypes(c, r, "gpu_type", cluster));
  }
  if (c.Has("gpu_milli")) {
    DLSIM_ASSIGN_OR_RETURN(double m, c.Number(r, "gpu_milli", 1, 1000, true));
    row.job.gpu_milli = static_cast<int>(m);
  }
  if (c.Has("priority")) {
    DLSIM_ASSIGN_OR_RETURN(row.job.priority, c.Number(r, "priority", 0, 1e6, false));
  }
  return row;
}

// A trace that is one CSV table with a header, a job per row: the columns it needs and how a row becomes a
// job.
struct CsvFormat {
  TraceFormat format;
  std::vector<std::string_view> required;
  Result<Row> (*row)(const Cells&, size_t, const TraceOptions&, const ClusterSpec&);
};

const CsvFormat kCsvFormats[] = {
    {TraceFormat::kPhilly, {"timestamp", "duration", "num_gpus", "cluster"}, PhillyRow},
    {TraceFormat::kTiresias, {"job_id", "num_gpu", "submit_time", "duration", "model_name"}, TiresiasRow},
    {TraceFormat::kOpenb,
     {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "creation_time", "deletion_time",
      "scheduled_time"},
     OpenbRow},
    {TraceFormat::kHelios, {"job_id", "vc", "gpu_num", "submit_time", "duration"}, HeliosRow},
    {TraceFormat::kCsv, {"arrival_s", "gpus"}, CsvRow},
};

Result<std::vector<Row>> TableRows(std::string_view text, const std::string& file, const TraceOptions& o,
                                   const ClusterSpec& cluster, const CsvFormat& f) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file));
  DLSIM_RETURN_IF_ERROR(RequireColumns(t, f.required));
  if (f.format == TraceFormat::kCsv && !t.Column("duration_s").ok() && !t.Column("steps").ok())
    return Error::InvalidArgument(file +
                                  ": a csv trace needs a 'duration_s' column or 'steps' and 'speed' columns");
  const Cells cells(t);
  std::vector<Row> rows;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(Row row, f.row(cells, r, o, cluster));
    if (row.keep) rows.push_back(std::move(row));
  }
  return rows;
}

Result<double> GavelNumber(std::string_view cell, const std::string& file, int line, std::string_view field,
                           double lo, double hi) {
  return internal::FieldNumber(cell, file, line, "field", field, lo, hi);
}

Result<Row> GavelRow(std::string_view line_text, const std::string& file, int line) {
  const std::vector<std::string_view> f = internal::Fields(line_text, '\t');
  if (f.size() != 7 && f.size() != 10)
    return Error::InvalidArgument(
        fmt::format("{}:{}: expected 7 or 10 tab-separated fields, found {}", file, line, f.size()));
  const bool old = f.size() == 7;
  Row row;
  row.line = line;
  row.job.name = std::string(f[0]);
  row.job.speed = row.job.name;
  DLSIM_ASSIGN_OR_RETURN(row.job.work, GavelNumber(f[old ? 4 : 5], file, line, "total_steps", 1, 1e15));
  DLSIM_ASSIGN_OR_RETURN(row.arrival_s,
                         GavelNumber(f[old ? 5 : 9], file, line, "arrival_time", 0, kMaxSeconds));
  DLSIM_ASSIGN_OR_RETURN(double scale,
                         GavelNumber(f[old ? 6 : 6], file, line, "scale_factor", 1, kMaxJobGpus));
  if (!old) {
    DLSIM_ASSIGN_OR_RETURN(row.job.priority, GavelNumber(f[7], file, line, "priority_weight", 0, 1e6));
  }
  row.job.gpus = static_cast<int>(scale);
  return row;
}

Result<std::vector<Row>> GavelRows(std::string_view text, const std::string& file) {
  std::vector<Row> rows;
  DLSIM_RETURN_IF_ERROR(internal::ForEachLine(text, [&](std::string_view l, int line) -> Status {
    if (l.empty() || l[0] == '#') return Status::Ok();
    DLSIM_ASSIGN_OR_RETURN(Row row, GavelRow(l, file, line));
    rows.push_back(std::move(row));
    return Status::Ok();
  }));
  return rows;
}

// Checks order (sort false), sorts, shifts to 0, scales, numbers ids, applies the limit.
Result<std::vector<JobSpec>> Finish(std::vector<Row> rows, const std::string& file, const TraceOptions& o) {
  if (rows.empty()) return Error::InvalidArgument(file + ": the trace has no jobs");
  for (const Row& r : rows)  // kept with skip_zero_duration: false, it failed in the engine with no location
    if (!(r.job.work > 0))
      return Error::InvalidArgument(
          fmt::format("{}:{}: the job has no work (duration 0); the simulator needs a positive duration "
                      "(skip_zero_duration: true drops such rows)",
                      file, r.line));
  if (!o.sort)
    for (size_t i = 1; i < rows.size(); ++i)
      if (rows[i].arrival_s < rows[i - 1].arrival_s)
        return Error::InvalidArgument(
            fmt::format("{}:{}: arrival {} s is before the previous row's ({} s, line {}); the rows are not "
                        "in time order "
                        "(set `sort: true` to sort them)",
                        file, rows[i].line, FormatNumber(rows[i].arrival_s, 10),
                        FormatNumber(rows[i - 1].arrival_s, 10), rows[i - 1].line));
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.arrival_s < b.arrival_s; });
  if (o.limit > 0 && static_cast<int64_t>(rows.size()) > o.limit) rows.resize(o.limit);
  if (static_cast<int64_t>(rows.size()) > kMaxJobs)
    return Error::InvalidArgument(
        fmt::format("{}: {} jobs; at most {} are simulated", file, rows.size(), kMaxJobs));
  const double t0 = rows.front().arrival_s;
  const Row& last = rows.back();
  if ((last.arrival_s - t0) / o.load_scale > kMaxSeconds)
    return Error::InvalidArgument(
        fmt::format("{}:{}: this job arrives {} s after the first one (line {}); a trace may span at most {} "
                    "s (31 years)",
                    file, last.line, FormatNumber((last.arrival_s - t0) / o.load_scale, 6), rows.front().line,
                    FormatNumber(kMaxSeconds, 10)));
  std::vector<JobSpec> jobs;
  jobs.reserve(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    JobSpec j = std::move(rows[i].job);
    j.arrival = TimePoint::Start() + Seconds((rows[i].arrival_s - t0) / o.load_scale);
    if (!rows[i].has_id) j.id = static_cast<int64_t>(i);
    if (j.name.empty()) j.name = fmt::format("job-{}", j.id);
    jobs.push_back(std::move(j));
  }
  return jobs;
}

int DaysInMonth(int year, int month) {
  static constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

// The traces that are not one CSV table of jobs.
struct OtherFormat {
  TraceFormat format;
  Result<std::vector<Row>> (*rows)(std::string_view, const std::string&, const TraceOptions&,
                                   const ClusterSpec&);
};

const OtherFormat kOtherFormats[] = {
    {TraceFormat::kGavel, [](std::string_view text, const std::string& file, const TraceOptions&,
                             const ClusterSpec&) { return GavelRows(text, file); }},
    {TraceFormat::kPhillyLog, [](std::string_view text, const std::string& file, const TraceOptions& o,
                                 const ClusterSpec&) { return internal::PhillyLogRows(text, file, o); }},
    {TraceFormat::kPai, internal::PaiTaskRows},
};

// The rows of `text` as its format's reader reads them; a new format is a row here or in kCsvFormats.
Result<std::vector<Row>> ReadRows(std::string_view text, const std::string& file, const TraceOptions& o,
                                  const ClusterSpec& cluster) {
  for (const OtherFormat& f : kOtherFormats)
    if (f.format == o.format) return f.rows(text, file, o, cluster);
  for (const CsvFormat& f : kCsvFormats)
    if (f.format == o.format) return TableRows(text, file, o, cluster, f);
  return Error::InvalidArgument(file + ": no reader for this trace format");
}

}  // namespace

std::optional<int64_t> ParseTimestamp(std::string_view text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  const std::string t(text);
  if (std::sscanf(t.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &n) != 6 ||
      n != static_cast<int>(t.size()))
    return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, mo) || h > 23 || mi > 59 || s > 60 || y < 1970 ||
      h < 0 || mi < 0 || s < 0)
    return std::nullopt;
  // Days from civil (H. Hinnant's algorithm).
  const int yy = y - (mo <= 2);
  const int era = yy / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = int64_t{era} * 146097 + doe - 719468;
  return days * 86400 + h * 3600 + mi * 60 + s;
}

Result<std::vector<JobSpec>> ParseTrace(std::string_view text, const std::string& file_name,
                                        const TraceOptions& options, const ClusterSpec& cluster) {
  if (!(options.load_scale > 0) || !std::isfinite(options.load_scale))
    return Error::InvalidArgument("load_scale must be positive");
  if (options.format == TraceFormat::kPollux)
    return Error::InvalidArgument(file_name +
                                  ": a pollux workload needs its application profiles (ParsePolluxWorkload)");
  DLSIM_ASSIGN_OR_RETURN(std::vector<Row> rows, ReadRows(text, file_name, options, cluster));
  return Finish(std::move(rows), file_name, options);
}

namespace internal {

std::vector<std::string_view> Fields(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  for (size_t pos = 0;;) {
    const size_t at = line.find(sep, pos);
    out.push_back(line.substr(pos, at == std::string_view::npos ? std::string_view::npos : at - pos));
    if (at == std::string_view::npos) return out;
    pos = at + 1;
  }
}

Result<double> FieldNumber(std::string_view cell, const std::string& file, int line, std::string_view kind,
                           std::string_view name, double lo, double hi) {
  const std::string s(cell);
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (!s.empty() && end == s.c_str() + s.size() && std::isfinite(v) && v >= lo && v <= hi) return v;
  return Error::InvalidArgument(fmt::format("{}:{}: {} '{}': expected a number in {}..{}, found '{}'", file,
                                            line, kind, name, FormatNumber(lo, 10), FormatNumber(hi, 10), s));
}

}  // namespace internal
}  // namespace dlsim::cluster
