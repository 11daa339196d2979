// What a cluster simulation produces: per-job records, the summary a user compares policies by,
// and the utilisation time series.
#ifndef DLSIM_CLUSTER_RESULT_H_
#define DLSIM_CLUSTER_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/cluster/speed.h"
#include "dlsim/core/stats.h"
#include "dlsim/core/units.h"

namespace dlsim::cluster {

struct JobRecord {
  int64_t id = 0;
  std::string name;
  int gpus = 0;
  double arrival_s = 0, start_s = 0, finish_s = 0;  // start: first start
  double jct_s = 0;                                 // finish - arrival
  double queued_s = 0;                              // jct - time holding GPUs
  double run_s = 0;                                 // time holding GPUs (restart overheads included)
  double alone_s = 0;  // work / reference rate: the time on a dedicated best placement
  int preemptions = 0;
  int resizes = 0;
  int nodes_spanned = 0;  // of the last allocation
  bool completed = false;
  std::string reason;  // why a job never ran ("needs 128 GPUs of a100; the cluster has 64")
};

struct UtilSample {
  double t_s = 0;
  double busy_gpus = 0;              // mean over the interval
  int64_t running = 0, waiting = 0;  // at the end of the interval
};

struct ClusterSummary {
  int64_t jobs = 0, completed = 0, never_fit = 0, measured = 0;
  Percentiles jct_s, queued_s;       // over the measured, completed jobs
  double makespan_s = 0;             // last completion (from time 0)
  double utilisation = 0;            // busy GPU-seconds / (GPUs x makespan)
  double rho_mean = 0, rho_max = 0;  // Themis finish-time fairness: jct / alone
  int64_t preemptions = 0;
  int64_t resizes = 0;             // allocation changes of running jobs (allocation policies)
  int64_t passes = 0, events = 0;  // scheduler work, for docs/cluster.md's complexity figures
  // Capacity loaning (capacity.h), over [0, makespan]: GPU-seconds training could use (the whole
  // cluster when there is no pool), GPU-seconds the pool's own demand used, nodes reclaimed, and
  // the jobs a reclaim preempted or shrank, and the GPU-seconds of work preempted jobs lost since
  // their last checkpoint. usage = (busy + inference GPU-s) / (GPUs x makespan).
  double available_gpu_s = 0;
  double inference_gpu_s = 0;
  double usage = 0;
  int64_t reclaimed_nodes = 0, reclaim_preemptions = 0, reclaim_shrinks = 0;
  double reclaim_lost_gpu_s = 0;
};

struct ClusterResult {
  std::string policy, placement;
  int64_t total_gpus = 0;
  ClusterSummary summary;
  std::vector<JobRecord> jobs;  // arrival order; empty when keep_records is off
  std::vector<UtilSample> utilisation;
  std::vector<std::pair<std::string, std::vector<ShapeSpeed>>> speeds;  // per speed-book entry
};

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_RESULT_H_
