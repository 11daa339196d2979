// Pollux application profiles and workloads (Qiao et al., OSDI'21; the AdaptDL artifact,
// github petuum/adaptdl branch osdi21-artifact, simulator/applications.py and simulator.py).
//
// An application is a directory of CSV files, parsed here from their text (io/ reads the files):
//   placements.csv       placement,local_bsz,step_time,sync_time: measured step time on a
//                        placement written as replicas per node ("124": 3 nodes, 7 replicas)
//   scalability.csv      num_nodes,num_replicas,local_bsz,step_time,sync_time: larger placements
//   validation-<B>.csv   progress,iteration,metric,grad_sqr,grad_var: one row per epoch of a run
//                        at batch size B; progress is cumulative work in iterations at the
//                        smallest validated batch size, scaled by statistical efficiency
// A workload is `name,time,application,num_replicas,batch_size` (time: arrival seconds). Pollux
// jobs carry their work as progress (PolluxApp::TotalWork(): the application's epochs) and the
// speed entry "pollux:<application>" (pollux_goodput.h gives progress per second).
//
//   PolluxAppTables t;  t.placements = ParsePolluxPlacements(text, "cifar10/placements.csv") ...
//   Result<PolluxApp> app = BuildPolluxApp("cifar10", std::move(t));
//   Result<std::vector<JobSpec>> jobs = ParsePolluxWorkload(csv, "workload-6.csv", apps);
// Every bad cell is an error "FILE:LINE: column 'c': expected ..., found 'x'". Values only;
// thread-safe as values.
#ifndef DLSIM_CLUSTER_POLLUX_PROFILE_H_
#define DLSIM_CLUSTER_POLLUX_PROFILE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/cluster/job.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

struct PolluxStepSample {
  int num_nodes = 1;
  int num_replicas = 1;
  std::vector<int> placement;  // replicas per node; empty for scalability.csv rows
  int local_bsz = 1;
  double step_time = 0;  // seconds per optimiser step, all-reduce included
  double sync_time = 0;  // seconds of the step spent synchronising
};

struct PolluxEpoch {
  double progress = 0;  // cumulative at the end of the epoch
  double iteration = 0;
  double metric = 0;
  double grad_sqr = 0;  // |g|^2 estimate during the epoch
  double grad_var = 0;  // gradient variance estimate during the epoch
};

struct PolluxAppTables {
  std::vector<PolluxStepSample> placements;
  std::vector<PolluxStepSample> scalability;
  std::map<int, std::vector<PolluxEpoch>> validation;  // by batch size
};

struct PolluxApp {
  std::string name;
  PolluxAppTables tables;
  // Defaults as applications.py derives them: init = smallest validated batch size, max =
  // largest; local batch range from placements.csv; epochs = the shortest validation run.
  int init_batch_size = 0;
  int max_batch_size = 0;
  int min_local_bsz = 0;
  int max_local_bsz = 0;
  int max_epochs = 0;
  // Artifact settings (simulator.py): a fixed total batch size (0: Pollux chooses it) and a cap
  // on replicas (0: none).
  int fixed_batch_size = 0;
  int max_replicas = 0;

  // Progress at the start of `epoch` (0 at epoch 0): the smallest over the validation runs.
  double ProgressAt(int epoch) const;
  // The epoch in which `progress` falls, in 0..max_epochs (max_epochs: finished).
  int EpochAt(double progress) const;
  // Progress that completes the job: ProgressAt(max_epochs).
  double TotalWork() const { return ProgressAt(max_epochs); }
  // Gradient statistics at `batch_size` during `epoch` (clamped to 0..max_epochs-1), linear
  // between the bracketing validated batch sizes; the batch size is clamped to the validated range.
  std::pair<double, double> GradStats(double batch_size, int epoch) const;  // (sqr, var)
};

Result<std::vector<PolluxStepSample>> ParsePolluxPlacements(std::string_view text, const std::string& file);
Result<std::vector<PolluxStepSample>> ParsePolluxScalability(std::string_view text, const std::string& file);
Result<std::vector<PolluxEpoch>> ParsePolluxValidation(std::string_view text, const std::string& file);
// The batch size of a file named "validation-<B>.csv"; error otherwise.
Result<int> PolluxValidationBatchSize(std::string_view file_name);

// Checks the tables (non-empty, validation runs of equal length up to the shortest, progress
// non-decreasing) and derives the defaults. `source` names the directory in errors.
Result<PolluxApp> BuildPolluxApp(std::string name, PolluxAppTables tables, const std::string& source);

// simulator.py's per-application settings of the artifact run: ncf trains at a fixed batch size
// of 32768 on one replica. Applied to the apps present.
void ApplyPolluxArtifactSettings(std::map<std::string, PolluxApp>& apps);

// Jobs of a Pollux workload CSV: arrival `time`, speed "pollux:<application>", work the
// application's TotalWork(), gpus `num_replicas` (informative: Pollux chooses the count), id
// the row number. An unknown application is an error naming the known ones.
Result<std::vector<JobSpec>> ParsePolluxWorkload(std::string_view text, const std::string& file,
                                                 const std::map<std::string, PolluxApp>& apps);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLLUX_PROFILE_H_
