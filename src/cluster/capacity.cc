#include "dlsim/cluster/capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"

namespace dlsim::cluster {
namespace {

constexpr double kMaxCurveSeconds = 1e9;  // ~31 years, as the trace readers

// The cell as a number in lo..hi (an integer when asked); errors "FILE:LINE:COL: column 'c':
// expected ..., found 'x'".
Result<double> Cell(const CsvTable& t, size_t r, std::string_view col, double lo, double hi, bool integer) {
  DLSIM_ASSIGN_OR_RETURN(size_t c, t.Column(col));
  const std::string& cell = t.rows[r][c];
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  const bool ok = !cell.empty() && end == cell.c_str() + cell.size() && std::isfinite(v) && v >= lo &&
                  v <= hi && (!integer || v == std::floor(v));
  if (ok) return v;
  return Error::InvalidArgument(fmt::format("{}: column '{}': expected {} in {}..{}, found '{}'",
                                            t.Where(r, c), col, integer ? "an integer" : "a number",
                                            FormatNumber(lo, 10), FormatNumber(hi, 10), cell));
}

Status NeedRows(const CsvTable& t) {
  if (t.rows.empty())
    return Error::InvalidArgument(t.file_name + ": no rows (a demand curve needs at least one)");
  return Status::Ok();
}

// Position of `t` inside the curve: t itself, or t modulo the period.
Duration Phase(const CapacityOptions& c, TimePoint t) {
  const int64_t ns = t.ToNanos();
  const int64_t p = c.period.ToNanos();
  return p > 0 ? Nanos(ns % p) : Nanos(ns);
}

}  // namespace

int DemandAt(const CapacityOptions& c, TimePoint t) {
  if (c.demand.empty()) return 0;
  const TimePoint at = TimePoint::Start() + Phase(c, t);
  auto it = std::upper_bound(c.demand.begin(), c.demand.end(), at,
                             [](TimePoint v, const DemandStep& s) { return v < s.at; });
  return it == c.demand.begin() ? c.demand.front().servers : std::prev(it)->servers;
}

std::optional<TimePoint> NextDemandChange(const CapacityOptions& c, TimePoint t) {
  if (c.demand.empty()) return std::nullopt;
  const Duration phase = Phase(c, t);
  const TimePoint cycle_start = t + (Duration::Zero() - phase);
  const TimePoint at = TimePoint::Start() + phase;
  auto it = std::upper_bound(c.demand.begin(), c.demand.end(), at,
                             [](TimePoint v, const DemandStep& s) { return v < s.at; });
  if (it != c.demand.end()) return cycle_start + it->at.SinceStart();
  if (c.period <= Duration::Zero()) return std::nullopt;
  return cycle_start + c.period;  // the next cycle's first step
}

int MaxLendable(const CapacityOptions& c) {
  const int pool = static_cast<int>(c.pool.size());
  if (!c.loan) return 0;
  if (c.demand.empty()) return pool;
  int least = c.demand.back().servers;
  if (c.period > Duration::Zero())
    for (const DemandStep& s : c.demand) least = std::min(least, s.servers);
  return std::clamp(pool - least, 0, pool);
}

Result<std::vector<DemandStep>> ParseDemandCurve(std::string_view text, const std::string& file_name,
                                                 int max_servers) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  DLSIM_RETURN_IF_ERROR(NeedRows(t));
  std::vector<DemandStep> out;
  double first = 0, last = -1;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double time_s, Cell(t, r, "time_s", 0, kMaxCurveSeconds, false));
    DLSIM_ASSIGN_OR_RETURN(double servers, Cell(t, r, "servers", 0, max_servers, true));
    if (r == 0) first = time_s;
    if (time_s <= last)
      return Error::InvalidArgument(
          fmt::format("{}:{}: column 'time_s': expected a time after {} (line {}), found {}", file_name,
                      t.row_lines[r], FormatNumber(last, 10), t.row_lines[r - 1], FormatNumber(time_s, 10)));
    last = time_s;
    out.push_back({TimePoint::Start() + Seconds(time_s - first), static_cast<int>(servers)});
  }
  return out;
}

Result<std::vector<DemandStep>> DemandFromQps(std::string_view text, const std::string& file_name,
                                              const QpsOptions& o, int max_servers) {
  if (!(o.per_server_qps > 0) || !std::isfinite(o.per_server_qps))
    return Error::InvalidArgument(
        fmt::format("{}: per_server_qps must be positive, found {}", file_name, o.per_server_qps));
  if (o.bucket <= Duration::Zero() || o.sample <= Duration::Zero())
    return Error::InvalidArgument(file_name + ": the QPS bucket and sample interval must be positive");
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  DLSIM_RETURN_IF_ERROR(NeedRows(t));
  std::map<int64_t, double> sum;                                     // bucket -> summed QPS
  const double bucket_ns = static_cast<double>(o.bucket.ToNanos());  // exact, unlike ToSeconds()
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double time_s, Cell(t, r, o.time_column, 0, 1e11, false));
    DLSIM_ASSIGN_OR_RETURN(double qps, Cell(t, r, o.value_column, 0, 1e12, false));
    sum[static_cast<int64_t>(std::floor(time_s * 1e9 / bucket_ns))] += qps;
  }
  std::vector<DemandStep> out;
  const int64_t first = sum.begin()->first, last = sum.rbegin()->first;
  for (int64_t b = first; b <= last; ++b) {
    auto it = sum.find(b);
    const double load = it == sum.end() ? 0 : it->second * (o.sample / o.bucket);
    const double need = std::ceil(load / o.per_server_qps - 1e-9);
    const int servers = static_cast<int>(std::min<double>(need, max_servers));
    if (!out.empty() && out.back().servers == servers) continue;
    out.push_back({TimePoint::Start() + o.bucket * (b - first), servers});
  }
  return out;
}

}  // namespace dlsim::cluster
