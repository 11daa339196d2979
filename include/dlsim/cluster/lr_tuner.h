// Learning-rate tuners of cluster jobs (AutoLRS): a job that declares `lr_tuner: autolrs` trains
// to its target in a different number of steps. The ratio is not modelled here: it is measured
// by a real tuner on a real training loop per task class and given in the user's data file (dlsim
// ships none: its AutoLRS reproduction does not reproduce the paper; docs/cluster.md):
//   work' = work x steps_ratio x (1 + trial_overhead)
// steps_ratio = the tuner's steps to the target / the baseline schedule's steps to it;
// trial_overhead = the tuner's trial steps (short runs it throws away) per kept step.
// Values and pure functions; thread-safe.
#ifndef DLSIM_CLUSTER_LR_TUNER_H_
#define DLSIM_CLUSTER_LR_TUNER_H_

#include <string>
#include <string_view>
#include <vector>

#include "dlsim/cluster/job.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

struct LrTunerRow {
  std::string tuner;          // "autolrs"
  std::string task;           // task class the ratio was measured on
  double steps_ratio = 1;     // (0, 10]
  double trial_overhead = 0;  // [0, 100]
};

// Columns tuner, task, steps_ratio, trial_overhead; errors name file, line, column and range.
Result<std::vector<LrTunerRow>> ParseLrTunerTable(std::string_view text, const std::string& file);

// The row of (tuner, task); an error listing the known pairs otherwise.
Result<LrTunerRow> FindLrTuner(const std::vector<LrTunerRow>& rows, std::string_view tuner,
                               std::string_view task);

// Scales the job's work (steps or seconds) by the row.
void ApplyLrTuner(JobSpec& job, const LrTunerRow& row);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_LR_TUNER_H_
