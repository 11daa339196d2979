// Synthetic job streams: Poisson arrivals with Gavel's duration and scale-factor mix
// (stanford-futuredata/gavel scheduler/utils.py, docs/cluster.md):
//   duration: with probability 0.8, 60 x 10^U(1.5, 3) s (31.6 min .. 16.7 h), else
//             60 x 10^U(3, 4) s (16.7 h .. 6.9 days);
//   GPUs: 1 (p 0.7), 2 (0.1), 4 (0.15), 8 (0.05);
//   priority weight 5 with probability 0.2, else 1.
// Optionally (Gavel's generate_job with a throughput table): each job draws a job type uniformly
// among the table's types that run on its GPU count on `reference_gpu` (Gavel's rejection of
// non-distributed types for multi-GPU jobs), and carries steps = duration x the type's steps/s on
// that GPU count of `reference_gpu` (consolidated), with speed = the type.
// The arrival rate is given directly (jobs per hour) or as an offered load: the fraction of the
// cluster's GPUs the stream keeps busy on average, rate = load x GPUs / E[GPUs x duration].
// Deterministic in the seed; thread-safe.
#ifndef DLSIM_CLUSTER_SYNTHETIC_H_
#define DLSIM_CLUSTER_SYNTHETIC_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/cluster/job.h"
#include "dlsim/cluster/throughput_table.h"
#include "dlsim/core/result.h"

namespace dlsim::cluster {

struct SyntheticOptions {
  int64_t jobs = 1000;
  double jobs_per_hour = 0;  // > 0: the rate; 0: derived from `load`
  double load = 0.8;         // offered load (used when jobs_per_hour is 0)
  int64_t cluster_gpus = 0;  // for `load`
  uint64_t seed = 1;
  bool multi_gpu = true;       // false: every job takes 1 GPU (Gavel without generate_multi_gpu_jobs)
  bool multi_priority = true;  // false: every weight is 1 (Gavel without generate_multi_priority_jobs)
  std::shared_ptr<const ThroughputTable> job_types;  // set: steps jobs of the table's types
  std::string reference_gpu = "v100";
};

// Mean GPU-seconds per job of the Gavel mix (closed form; docs/cluster.md); single-GPU jobs only
// when !multi_gpu.
double GavelMixMeanGpuSeconds(bool multi_gpu = true);

// The Poisson arrival rate GenerateGavelMix draws with: jobs_per_hour, or the one `load` implies on
// cluster_gpus GPUs (0 when neither gives a positive rate).
double GavelMixJobsPerHour(const SyntheticOptions& options);

// Errors: no jobs, more than kMaxJobs, a load without cluster GPUs, a non-positive rate; with job
// types, a GPU count no type of the table runs on `reference_gpu`.
Result<std::vector<JobSpec>> GenerateGavelMix(const SyntheticOptions& options);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_SYNTHETIC_H_
