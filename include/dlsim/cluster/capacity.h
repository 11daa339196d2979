// A cluster whose capacity for training changes over time: a lendable pool of nodes (an
// inference or online-serving cluster) whose own demand follows a time series. The nodes the
// pool does not need are lent to training; when its demand rises the engine reclaims nodes
// (the policy chooses which: SchedulingPolicy::ChooseReclaim) and the training jobs on them are
// preempted, or shrunk when they are elastic (JobSpec::max_gpus) and keep at least min_gpus.
//
//   cluster::CapacityOptions cap;
//   cap.pool = {40, 41, 42};                                   // node indices of the pool
//   cap.demand = *cluster::ParseDemandCurve(text, "demand.csv", 3);  // servers per time
//   cap.period = Seconds(86400);                               // the curve repeats daily
//   options.capacity = cap;
//
// Demand curves come from a `time_s,servers` CSV or from a QPS trace (Alibaba GenAI's
// qps.csv: per-container request rates, summed per bucket and divided by a per-server QPS
// capacity). Values only; thread-safe as values.
#ifndef DLSIM_CLUSTER_CAPACITY_H_
#define DLSIM_CLUSTER_CAPACITY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"

namespace dlsim::cluster {

// From `at` on (until the next step), the pool itself needs `servers` of its nodes.
struct DemandStep {
  TimePoint at;
  int servers = 0;
};

struct CapacityOptions {
  std::vector<int> pool;           // node indices of the lendable pool, distinct, in lending order
  std::vector<DemandStep> demand;  // a step function; sorted by time, first step at 0
  // The curve repeats every `period` (> the last step); Zero(): it holds its last value.
  Duration period = Duration::Zero();
  // false: the pool never lends (the no-loaning baseline); its nodes never run training.
  bool loan = true;
  // A reclaim gives no time to checkpoint: a job it preempts loses the work since its last
  // checkpoint, taken every `checkpoint_interval` of its run since it last started; Zero(): none
  // lost (the job resumes where it stopped, paying only restart_overhead).
  Duration checkpoint_interval = Duration::Zero();
};

// The servers the pool needs at `t` (a step function, repeated every period).
int DemandAt(const CapacityOptions& c, TimePoint t);
// The first time after `t` at which the demand may change; nullopt when it never does.
std::optional<TimePoint> NextDemandChange(const CapacityOptions& c, TimePoint t);
// The most pool nodes ever lent from `t` on: pool - the least demand of a repeating curve, or of
// the last value of one that holds it (0 when loan is off).
int MaxLendable(const CapacityOptions& c);

// Parses `time_s,servers` (a header row, '#' comments; times >= 0 and strictly increasing; the
// first is shifted to 0; servers integers in 0..max_servers). Errors name the file, line and
// column, what was expected and the range.
Result<std::vector<DemandStep>> ParseDemandCurve(std::string_view text, const std::string& file_name,
                                                 int max_servers);

struct QpsOptions {
  double per_server_qps = 1;  // requests per second one server sustains (> 0)
  Duration bucket = Seconds(60);
  // How often each container reports its rate: a bucket of b seconds holds b / sample rows per
  // container, so its load is the sum of its rows' values x sample / b.
  Duration sample = Seconds(60);
  std::string time_column = "timestamp_anon";  // seconds (any epoch)
  std::string value_column = "value";          // requests per second of one row's container
};

// A QPS trace turned into servers per bucket: the bucket's load is the sum of its rows' values x
// sample / bucket (rows are samples of each container's rate; a bucket without rows has no
// load), servers = ceil(load / per_server_qps), capped at max_servers; times shifted so the first
// bucket is at 0.
// Errors as ParseDemandCurve's (a negative or non-numeric cell, a missing column, no rows).
Result<std::vector<DemandStep>> DemandFromQps(std::string_view text, const std::string& file_name,
                                              const QpsOptions& o, int max_servers);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_CAPACITY_H_
