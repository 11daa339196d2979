// Job-trace readers: each public trace format dlsim reads, turned into JobSpecs. Each format is
// documented in docs/cluster.md with its columns; every bad row is an error naming the file,
// line and column, what was expected and the allowed range.
//
//   philly    Pollux/AdaptDL's Philly CSV: timestamp,duration,num_gpus,gpu_time,cluster
//             (82,247 jobs; timestamps "YYYY-MM-DD HH:MM:SS")
//   philly-log  Philly's raw cluster_job_log (msr-fiddle/philly-traces): a JSON array of jobs with
//             jobid, vc, submitted_time and attempts [{start_time, end_time, detail [{ip, gpus}]}]
//   pai       Alibaba PAI GPU trace 2020, pai_task_table.csv (no header row, or its .header line):
//             job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,
//             gpu_type; a job's tasks together are one job
//   gavel     Gavel .trace, tab-separated, 7 fields (job_type, command, num_steps_arg,
//             needs_data_dir, total_steps, arrival_time, scale_factor) or 10 fields (job_type,
//             command, working_directory, num_steps_arg, needs_data_dir, total_steps, scale_factor,
//             priority_weight, SLO, arrival_time); work is steps, speed the job type
//   tiresias  Tiresias CSV: job_id,num_gpu,submit_time,iterations,model_name,duration,interval
//   openb     Alibaba v2023 pod list: name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
//             pod_phase,creation_time,deletion_time,scheduled_time (GPU sharing, type constraints)
//   helios    Helios cluster_log.csv: job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,
//             start_time,end_time,duration,queue (times: seconds or "YYYY-MM-DD HH:MM:SS")
//   pollux    Pollux workload CSV: name,time,application,num_replicas,batch_size; read by
//             ParsePolluxWorkload (pollux_profile.h) with the application profiles, not here
//   csv       dlsim's own: arrival_s,gpus and duration_s (or steps + speed); optional id, name,
//             gpu_type ("a|b"), gpu_milli, priority, group, cpu_milli, memory_mib
// A format is a row of one of two tables in trace.cc: kCsvFormats (a CSV table, a job per row: the columns it
// needs and its row reader) or kOtherFormats (its own reader of the whole text).
// Arrivals are shifted so the earliest is at 0, then divided by `load_scale` (a trace replayed
// at twice the load has load_scale 2). Pure functions of their text; thread-safe.
#ifndef DLSIM_CLUSTER_TRACE_H_
#define DLSIM_CLUSTER_TRACE_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/cluster/cluster_spec.h"
#include "dlsim/cluster/job.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

enum class TraceFormat { kPhilly, kPhillyLog, kGavel, kTiresias, kOpenb, kHelios, kPai, kPollux, kCsv };
inline constexpr std::pair<std::string_view, TraceFormat> kTraceFormatNames[] = {
    {"philly", TraceFormat::kPhilly}, {"philly-log", TraceFormat::kPhillyLog},
    {"gavel", TraceFormat::kGavel},   {"tiresias", TraceFormat::kTiresias},
    {"openb", TraceFormat::kOpenb},   {"helios", TraceFormat::kHelios},
    {"pai", TraceFormat::kPai},       {"pollux", TraceFormat::kPollux},
    {"csv", TraceFormat::kCsv}};

struct TraceOptions {
  TraceFormat format = TraceFormat::kCsv;
  // true: rows may come in any order (they are sorted by arrival); false: a row earlier than
  // the one before it is an error (a check that the file is what the user thinks it is).
  bool sort = true;
  double load_scale = 1;           // arrivals divided by this (> 0)
  int64_t limit = 0;               // first N jobs by arrival; 0: all
  std::string group;               // philly/philly-log/helios: keep only this virtual cluster; empty: all
  bool skip_zero_duration = true;  // philly/helios/openb rows of 0 s (failed at submission)
};

// `cluster` resolves GPU type names (openb gpu_spec, csv gpu_type); an unknown name is an error
// with the cluster's types and a suggestion.
Result<std::vector<JobSpec>> ParseTrace(std::string_view text, const std::string& file_name,
                                        const TraceOptions& options, const ClusterSpec& cluster);

// Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS" (UTC, proleptic Gregorian); nullopt when the
// text is not such a timestamp.
std::optional<int64_t> ParseTimestamp(std::string_view text);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_TRACE_H_
