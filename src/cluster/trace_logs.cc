// The raw public traces that are not one CSV table of jobs: Philly's job log (JSON) and Alibaba PAI's task
// table (headerless CSV, several tasks per job). How each becomes jobs, and why: docs/cluster.md.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>

#include "dlsim/core/strings.h"
#include "trace_rows.h"

namespace dlsim::cluster::internal {
namespace {

using nlohmann::json;

// ----- Philly: cluster_job_log -----

// A Philly time ("2017-10-07 01:12:09"); nullopt for "None", "" or a missing key (an attempt still running
// or never started).
Result<std::optional<double>> PhillyTime(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::optional<double>();
  if (!it->is_string())
    return Error::InvalidArgument(where + "." + key + ": expected a date string, found " + it->dump());
  const std::string s = it->get<std::string>();
  if (s.empty() || s == "None") return std::optional<double>();
  if (std::optional<int64_t> t = ParseTimestamp(s)) return std::optional<double>(static_cast<double>(*t));
  return Error::InvalidArgument(where + "." + key + ": expected 'YYYY-MM-DD HH:MM:SS' or None, found '" + s +
                                "'");
}

// GPUs of an attempt: the GPUs listed on each of its machines.
Result<int> AttemptGpus(const json& attempt, const std::string& where) {
  const auto detail = attempt.find("detail");
  if (detail == attempt.end() || !detail->is_array())
    return Error::InvalidArgument(where + ".detail: expected a list");
  int64_t gpus = 0;
  for (const json& machine : *detail) {
    const auto list = machine.is_object() ? machine.find("gpus") : machine.end();
    if (list == machine.end() || !list->is_array())
      return Error::InvalidArgument(where + ".detail: each machine needs a 'gpus' list");
    gpus += static_cast<int64_t>(list->size());
  }
  if (gpus > kMaxJobGpus)
    return Error::InvalidArgument(where + ": more than " + std::to_string(kMaxJobGpus) + " GPUs");
  return static_cast<int>(gpus);
}

// One job: arrival at submitted_time; GPUs of its first attempt (the trace notebook's num_gpus); work the
// time its attempts ran, summed (a killed attempt's time was spent; the gaps between attempts were not).
Result<TraceRow> PhillyJob(const json& j, int index, const std::string& file) {
  const std::string where = fmt::format("{}: job {}", file, index + 1);
  if (!j.is_object()) return Error::InvalidArgument(where + ": expected an object");
  TraceRow row;
  row.line = index + 1;
  row.job.name = j.value("jobid", "");
  row.job.group = j.value("vc", "");
  DLSIM_ASSIGN_OR_RETURN(std::optional<double> submitted, PhillyTime(j, "submitted_time", where));
  if (!submitted) return Error::InvalidArgument(where + " (" + row.job.name + "): no submitted_time");
  row.arrival_s = *submitted;
  const auto attempts = j.find("attempts");
  if (attempts == j.end() || !attempts->is_array())
    return Error::InvalidArgument(where + ".attempts: expected a list");
  for (size_t a = 0; a < attempts->size(); ++a) {
    const std::string at = fmt::format("{}.attempts[{}]", where, a);
    const json& attempt = (*attempts)[a];
    if (!attempt.is_object()) return Error::InvalidArgument(at + ": expected an object");
    DLSIM_ASSIGN_OR_RETURN(int gpus, AttemptGpus(attempt, at));
    if (a == 0) row.job.gpus = gpus;
    DLSIM_ASSIGN_OR_RETURN(std::optional<double> start, PhillyTime(attempt, "start_time", at));
    DLSIM_ASSIGN_OR_RETURN(std::optional<double> end, PhillyTime(attempt, "end_time", at));
    if (start && end && *end > *start) row.job.work += *end - *start;
  }
  return row;
}

// ----- Alibaba PAI: pai_task_table.csv -----

constexpr const char* kPaiColumns[] = {"job_name", "task_name", "inst_num", "status",   "start_time",
                                       "end_time", "plan_cpu",  "plan_mem", "plan_gpu", "gpu_type"};

// A number cell; empty and "nan" (a pandas export of a missing value) read as 0.
Result<double> PaiNumber(std::string_view cell, const std::string& file, int line, int col, double hi) {
  if (cell.empty() || cell == "nan" || cell == "NaN") return 0.0;
  return FieldNumber(cell, file, line, "column", kPaiColumns[col], 0, hi);
}

// A job's tasks so far: its span, its GPU share in hundredths (plan_gpu x inst_num) and type.
struct PaiJob {
  double start = 0, end = 0;
  double gpu_percent = 0;
  std::string gpu_type;
  int line = 0;
};

// Adds one task row to its job; rows without a launch or an end (Waiting, Running) or without GPUs are left
// out (the trace's times use 0 for "missing").
Status AddPaiTask(std::string_view text, const std::string& file, int line,
                  std::map<std::string, PaiJob>& jobs) {
  const std::vector<std::string_view> f = Fields(text, ',');
  if (f.size() != 10)
    return Error::InvalidArgument(
        fmt::format("{}:{}: expected the 10 columns of pai_task_table ({}), found {}", file, line,
                    fmt::join(kPaiColumns, ","), f.size()));
  DLSIM_ASSIGN_OR_RETURN(double inst, PaiNumber(f[2], file, line, 2, 1e6));
  DLSIM_ASSIGN_OR_RETURN(double start, PaiNumber(f[4], file, line, 4, kMaxArrivalS));
  DLSIM_ASSIGN_OR_RETURN(double end, PaiNumber(f[5], file, line, 5, kMaxArrivalS));
  DLSIM_ASSIGN_OR_RETURN(double gpu, PaiNumber(f[8], file, line, 8, 1e6));
  if (start <= 0 || end <= start || gpu <= 0) return Status::Ok();
  PaiJob& j = jobs[std::string(f[0])];
  const bool first = j.line == 0;
  j.start = first ? start : std::min(j.start, start);
  j.end = first ? end : std::max(j.end, end);
  j.gpu_percent += gpu * std::max(inst, 1.0);
  if (first) {
    j.line = line;
    j.gpu_type = std::string(f[9]);
  }
  return Status::Ok();
}

// GPUs as a whole count, or one GPU's share (gpu_milli) below one GPU; the type constrains the job when the
// cluster has a GPU type of that name (V100, V100M32, P100, T4, MISC).
TraceRow PaiRow(const std::string& name, const PaiJob& j, const ClusterSpec& cluster) {
  TraceRow row;
  row.line = j.line;
  row.arrival_s = j.start;
  row.job.name = name;
  row.job.work = j.end - j.start;
  if (j.gpu_percent < 100) {
    row.job.gpus = 1;
    row.job.gpu_milli = std::max(1, static_cast<int>(std::lround(j.gpu_percent * 10)));
  } else {
    row.job.gpus = static_cast<int>(std::ceil(j.gpu_percent / 100 - 1e-9));
  }
  if (std::optional<int> t = cluster.FindGpuType(j.gpu_type)) row.job.gpu_types = {*t};
  return row;
}

}  // namespace

Result<std::vector<TraceRow>> PhillyLogRows(std::string_view text, const std::string& file,
                                            const TraceOptions& options) {
  json log = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (log.is_discarded())
    return Error::InvalidArgument(file + ": not valid JSON (a Philly cluster_job_log is one JSON array)");
  if (!log.is_array())
    return Error::InvalidArgument(file + ": expected a JSON array of jobs (Philly's cluster_job_log)");
  std::vector<TraceRow> rows;
  for (size_t i = 0; i < log.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(TraceRow row, PhillyJob(log[i], static_cast<int>(i), file));
    const bool ran =
        row.job.work > 0 && row.job.gpus > 0;  // no attempt ran (or none had GPUs): never scheduled
    if (ran && (options.group.empty() || row.job.group == options.group)) rows.push_back(std::move(row));
  }
  return rows;
}

Result<std::vector<TraceRow>> PaiTaskRows(std::string_view text, const std::string& file,
                                          const TraceOptions& options, const ClusterSpec& cluster) {
  std::map<std::string, PaiJob> jobs;
  DLSIM_RETURN_IF_ERROR(ForEachLine(text, [&](std::string_view l, int line) {
    if (l.empty() || (line == 1 && l.rfind("job_name,", 0) == 0)) return Status::Ok();  // the .header line
    return AddPaiTask(l, file, line, jobs);
  }));
  if (!options.group.empty())
    return Error::InvalidArgument(file + ": the PAI task table has no virtual clusters; leave `group` out");
  std::vector<TraceRow> rows;
  rows.reserve(jobs.size());
  for (const auto& [name, j] : jobs) rows.push_back(PaiRow(name, j, cluster));
  std::sort(rows.begin(), rows.end(), [](const TraceRow& a, const TraceRow& b) { return a.line < b.line; });
  return rows;
}

}  // namespace dlsim::cluster::internal
