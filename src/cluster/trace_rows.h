// Internal to the job-trace readers (trace.cc): one job as a reader found it, before the rows are sorted,
// shifted to 0 and numbered (trace.cc, Finish), and the readers of the traces that are not one CSV table
// (trace_logs.cc: Philly's raw job log, Alibaba PAI's task table).
#ifndef DLSIM_CLUSTER_TRACE_ROWS_H_
#define DLSIM_CLUSTER_TRACE_ROWS_H_

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/cluster/trace.h"

namespace dlsim::cluster::internal {

// A job row; `line` for ordering errors (for a JSON log: the job's index + 1), `arrival_s` before shifting.
struct TraceRow {
  JobSpec job;
  double arrival_s = 0;
  int line = 0;
  bool keep = true;
  bool has_id = false;  // the trace gives the id; else the arrival rank is the id
};

// Calls fn(line, number) for each line of `text` (numbers from 1, a trailing '\r' removed); the first error
// fn returns stops the walk and is returned.
template <typename Fn>
Status ForEachLine(std::string_view text, Fn fn) {
  int number = 0;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++number;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    DLSIM_RETURN_IF_ERROR(fn(l, number));
  }
  return Status::Ok();
}

// The fields of a line split at `sep` (no quoting: Gavel's tab-separated lines, PAI's comma-separated ones).
std::vector<std::string_view> Fields(std::string_view line, char sep);

// A field of a line-oriented trace as a number in lo..hi (decimal, finite). Error: "FILE:LINE: KIND 'NAME':
// expected a number in lo..hi, found 'x'" (KIND "field" or "column").
Result<double> FieldNumber(std::string_view cell, const std::string& file, int line, std::string_view kind,
                           std::string_view name, double lo, double hi);

// Philly's raw `cluster_job_log` (msr-fiddle/philly-traces): a JSON array of jobs (docs/cluster.md,
// "philly-log").
Result<std::vector<TraceRow>> PhillyLogRows(std::string_view text, const std::string& file,
                                            const TraceOptions& options);
// Alibaba PAI's pai_task_table.csv (alibaba/clusterdata cluster-trace-gpu-v2020), one job per job_name.
Result<std::vector<TraceRow>> PaiTaskRows(std::string_view text, const std::string& file,
                                          const TraceOptions& options, const ClusterSpec& cluster);

}  // namespace dlsim::cluster::internal

#endif  // DLSIM_CLUSTER_TRACE_ROWS_H_
