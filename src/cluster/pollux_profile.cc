// Pollux profile and workload readers; the derivations follow the AdaptDL artifact's
// simulator/applications.py (Application.__init__, get_progress, get_grad_stats).
#include "dlsim/cluster/pollux_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"

namespace dlsim::cluster {
namespace {

// A number in [lo, hi] (an integer when `integer`) from cell (r, col); errors locate the cell.
Result<double> Cell(const CsvTable& t, size_t r, std::string_view col, double lo, double hi, bool integer) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, t.Text(r, col));
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(v) && v >= lo && v <= hi &&
      (!integer || v == std::floor(v)))
    return v;
  return Error::InvalidArgument(
      fmt::format("{}:{}: column '{}': expected {} in {}..{}, found '{}'", t.file_name, t.row_lines[r], col,
                  integer ? "an integer" : "a number", FormatNumber(lo, 10), FormatNumber(hi, 10), text));
}

Result<CsvTable> Table(std::string_view text, const std::string& file,
                       std::initializer_list<std::string_view> cols) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file));
  for (std::string_view c : cols)
    if (!t.Column(c).ok())
      return Error::InvalidArgument(
          fmt::format("{}: missing column '{}'; the header has: {}", file, c, Join(t.header, ",")));
  if (t.rows.empty()) return Error::InvalidArgument(fmt::format("{}: no rows", file));
  return t;
}

constexpr double kMaxTime = 1e6;  // seconds per step
constexpr double kMaxBsz = 1e7;

Status StepTimes(const CsvTable& t, size_t r, PolluxStepSample& s) {
  DLSIM_ASSIGN_OR_RETURN(double bsz, Cell(t, r, "local_bsz", 1, kMaxBsz, true));
  DLSIM_ASSIGN_OR_RETURN(s.step_time, Cell(t, r, "step_time", 1e-12, kMaxTime, false));
  DLSIM_ASSIGN_OR_RETURN(s.sync_time, Cell(t, r, "sync_time", 0, kMaxTime, false));
  s.local_bsz = static_cast<int>(bsz);
  if (s.sync_time >= s.step_time)
    return Error::InvalidArgument(
        fmt::format("{}:{}: column 'sync_time': expected less than step_time {}, found {}", t.file_name,
                    t.row_lines[r], s.step_time, s.sync_time));
  return Status::Ok();
}

// "124" -> {1,2,4}: one digit 1..9 per node.
Result<std::vector<int>> Placement(const CsvTable& t, size_t r) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, t.Text(r, "placement"));
  std::vector<int> out;
  for (char ch : text) {
    if (ch < '1' || ch > '9') {
      out.clear();
      break;
    }
    out.push_back(ch - '0');
  }
  if (out.empty() || out.size() > 64)
    return Error::InvalidArgument(fmt::format(
        "{}:{}: column 'placement': expected replicas per node as digits 1-9 (e.g. '124'), found '{}'",
        t.file_name, t.row_lines[r], text));
  return out;
}

}  // namespace

Result<std::vector<PolluxStepSample>> ParsePolluxPlacements(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, Table(text, file, {"placement", "local_bsz", "step_time", "sync_time"}));
  std::vector<PolluxStepSample> out(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(out[r].placement, Placement(t, r));
    DLSIM_RETURN_IF_ERROR(StepTimes(t, r, out[r]));
    out[r].num_nodes = static_cast<int>(out[r].placement.size());
    out[r].num_replicas = 0;
    for (int k : out[r].placement) out[r].num_replicas += k;
  }
  return out;
}

Result<std::vector<PolluxStepSample>> ParsePolluxScalability(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(
      CsvTable t, Table(text, file, {"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}));
  std::vector<PolluxStepSample> out(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double nodes, Cell(t, r, "num_nodes", 1, 1e5, true));
    DLSIM_ASSIGN_OR_RETURN(double replicas, Cell(t, r, "num_replicas", nodes, 1e6, true));
    out[r].num_nodes = static_cast<int>(nodes);
    out[r].num_replicas = static_cast<int>(replicas);
    DLSIM_RETURN_IF_ERROR(StepTimes(t, r, out[r]));
  }
  return out;
}

Result<std::vector<PolluxEpoch>> ParsePolluxValidation(std::string_view text, const std::string& file) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         Table(text, file, {"progress", "iteration", "metric", "grad_sqr", "grad_var"}));
  std::vector<PolluxEpoch> out(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    PolluxEpoch& e = out[r];
    DLSIM_ASSIGN_OR_RETURN(e.progress, Cell(t, r, "progress", 0, 1e15, false));
    DLSIM_ASSIGN_OR_RETURN(e.iteration, Cell(t, r, "iteration", 0, 1e15, false));
    DLSIM_ASSIGN_OR_RETURN(e.metric, Cell(t, r, "metric", -1e300, 1e300, false));
    DLSIM_ASSIGN_OR_RETURN(e.grad_sqr, Cell(t, r, "grad_sqr", 0, 1e300, false));
    DLSIM_ASSIGN_OR_RETURN(e.grad_var, Cell(t, r, "grad_var", 0, 1e300, false));
    if (r > 0 && e.progress < out[r - 1].progress)
      return Error::InvalidArgument(
          fmt::format("{}:{}: column 'progress': expected at least {} (the row before), found {}", file,
                      t.row_lines[r], out[r - 1].progress, e.progress));
  }
  return out;
}

Result<int> PolluxValidationBatchSize(std::string_view file_name) {
  const size_t slash = file_name.find_last_of('/');
  std::string base(slash == std::string_view::npos ? file_name : file_name.substr(slash + 1));
  const std::string prefix = "validation-", suffix = ".csv";
  if (base.size() > prefix.size() + suffix.size() && base.starts_with(prefix) && base.ends_with(suffix)) {
    const std::string digits = base.substr(prefix.size(), base.size() - prefix.size() - suffix.size());
    if (digits.size() < 9 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
      if (int b = std::atoi(digits.c_str()); b > 0) return b;
  }
  return Error::InvalidArgument(fmt::format("{}: expected a name 'validation-<batch size>.csv'", file_name));
}

Result<PolluxApp> BuildPolluxApp(std::string name, PolluxAppTables tables, const std::string& source) {
  if (tables.placements.empty() || tables.validation.empty())
    return Error::InvalidArgument(
        fmt::format("{}: application '{}' needs placements.csv and validation-*.csv files", source, name));
  PolluxApp a;
  a.name = std::move(name);
  a.init_batch_size = tables.validation.begin()->first;
  a.max_batch_size = tables.validation.rbegin()->first;
  a.min_local_bsz = a.max_local_bsz = tables.placements.front().local_bsz;
  for (const PolluxStepSample& s : tables.placements)
    a.min_local_bsz = std::min(a.min_local_bsz, s.local_bsz),
    a.max_local_bsz = std::max(a.max_local_bsz, s.local_bsz);
  a.max_epochs = static_cast<int>(tables.validation.begin()->second.size());
  for (const auto& [b, run] : tables.validation)
    a.max_epochs = std::min(a.max_epochs, static_cast<int>(run.size()));
  if (a.max_epochs == 0)
    return Error::InvalidArgument(fmt::format("{}: a validation run has no rows", source));
  if (a.max_batch_size < a.min_local_bsz)
    return Error::InvalidArgument(
        fmt::format("{}: the largest validated batch size {} is below the smallest local batch {}", source,
                    a.max_batch_size, a.min_local_bsz));
  a.tables = std::move(tables);
  return a;
}

double PolluxApp::ProgressAt(int epoch) const {
  if (epoch <= 0) return 0;
  double p = 0;
  bool first = true;
  for (const auto& [b, run] : tables.validation) {
    const double v = run[std::min<size_t>(epoch, run.size()) - 1].progress;
    p = first ? v : std::min(p, v);
    first = false;
  }
  return p;
}

int PolluxApp::EpochAt(double progress) const {
  int e = 0;
  while (e < max_epochs && ProgressAt(e + 1) <= progress) ++e;
  return e;
}

std::pair<double, double> PolluxApp::GradStats(double batch_size, int epoch) const {
  const size_t row = static_cast<size_t>(std::clamp(epoch, 0, max_epochs - 1));
  auto upper = tables.validation.lower_bound(static_cast<int>(std::ceil(batch_size)));
  if (upper == tables.validation.end()) --upper;
  auto lower = upper;
  if (lower != tables.validation.begin() && lower->first > batch_size) --lower;
  const PolluxEpoch& lo = lower->second[row];
  const PolluxEpoch& hi = upper->second[row];
  if (lower->first == upper->first || batch_size <= lower->first) return {lo.grad_sqr, lo.grad_var};
  const double w =
      (std::min<double>(batch_size, upper->first) - lower->first) / (upper->first - lower->first);
  return {lo.grad_sqr + w * (hi.grad_sqr - lo.grad_sqr), lo.grad_var + w * (hi.grad_var - lo.grad_var)};
}

void ApplyPolluxArtifactSettings(std::map<std::string, PolluxApp>& apps) {
  if (auto it = apps.find("ncf"); it != apps.end()) {  // simulator.py: Cluster.__init__, get_pollux_job_info
    it->second.fixed_batch_size = 32768;
    it->second.max_replicas = 1;
  }
}

Result<std::vector<JobSpec>> ParsePolluxWorkload(std::string_view text, const std::string& file,
                                                 const std::map<std::string, PolluxApp>& apps) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, Table(text, file, {"name", "time", "application", "num_replicas"}));
  std::vector<std::string> known;
  for (const auto& [n, a] : apps) known.push_back(n);
  std::vector<JobSpec> jobs(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    JobSpec& j = jobs[r];
    DLSIM_ASSIGN_OR_RETURN(j.name, t.Text(r, "name"));
    DLSIM_ASSIGN_OR_RETURN(double time, Cell(t, r, "time", 0, 1e9, false));
    DLSIM_ASSIGN_OR_RETURN(double replicas, Cell(t, r, "num_replicas", 1, kMaxJobGpus, true));
    DLSIM_ASSIGN_OR_RETURN(std::string app, t.Text(r, "application"));
    auto it = apps.find(app);
    if (it == apps.end())
      return Error::InvalidArgument(fmt::format("{}:{}: column 'application': {}", file, t.row_lines[r],
                                                UnknownNameMessage("Pollux application", app, known)));
    j.id = static_cast<int64_t>(r);
    j.arrival = TimePoint::Start() + Seconds(time);
    j.gpus = static_cast<int>(replicas);
    j.work = it->second.TotalWork();
    j.speed = "pollux:" + app;
    j.group = app;
  }
  return jobs;
}

}  // namespace dlsim::cluster
