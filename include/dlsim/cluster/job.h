// A job of a cluster trace: when it arrives, what it asks for, and how much work it carries.
//
// Work comes in one of two forms:
//   - a duration: `work` is seconds on the requested allocation and `speed` is empty; the job
//     runs at rate 1 (one second of work per second) on any placement of its GPUs (trace jobs);
//   - steps: `work` is a number of steps (iterations) and `speed` names an entry of the speed
//     book (speed.h) that gives steps per second on each placement shape (throughput tables,
//     training scenarios).
// Values only; thread-safe as values.
#ifndef DLSIM_CLUSTER_JOB_H_
#define DLSIM_CLUSTER_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/core/units.h"

namespace dlsim::cluster {

// Jobs per trace dlsim accepts (memory is O(jobs); a month of the busiest public trace is ~1e5).
inline constexpr int64_t kMaxJobs = 20'000'000;
// Peak memory of a run per job, measured (maximum resident set, /usr/bin/time -f %M): Gavel's synthetic mix
// on 10,800 GPUs under FIFO, 250,000 / 1,000,000 / 2,000,000 jobs: 171 / 630 / 1,239 MiB, 640 bytes per job
// at the margin (docs/cluster.md, "Memory"). Runs beyond the machine's memory are refused with it
// (core/machine_memory.h).
inline constexpr double kRunBytesPerJob = 640;
inline constexpr int kMaxJobGpus = 1 << 20;
// The latest arrival dlsim simulates (seconds from the trace's start; 31 years, far inside the
// nanosecond clock): the trace readers' rule, also checked where arrivals are rescaled (sweeps).
inline constexpr double kMaxArrivalS = 1e9;

struct JobSpec {
  int64_t id = 0;              // unique within a trace; the trace's id or its row number
  std::string name;            // trace name or job type, for reports
  TimePoint arrival;           // submission time, from the start of the trace
  int gpus = 1;                // GPUs requested (0: a CPU-only job, which needs no GPU slot)
  int gpu_milli = 1000;        // share of one GPU when gpus == 1 (1..1000; openb GPU sharing)
  std::vector<int> gpu_types;  // allowed GPU type ids (ClusterSpec); empty: any type
  double work = 0;             // seconds (speed empty) or steps (speed set); > 0
  std::string speed;           // speed-book entry; empty: duration job
  double priority = 1;         // weight (Gavel's priority_weight); informative for most policies
  int64_t cpu_milli = 0;       // per job; checked on single-node placements (openb pods)
  int64_t memory_mib = 0;
  std::string group;  // virtual cluster / tenant, for reports
  // Input preprocessing (cluster/input_pipeline.h): CPU core-seconds to preprocess the input of
  // one unit of work (a step, or a second of a duration job on its requested GPUs), and bytes of
  // preprocessed input per unit of work (what a remote data worker ships). 0: never input-bound.
  double input_core_s = 0;
  double input_bytes = 0;
  // Elastic jobs (Aryl, EasyScale; cluster/elastic.h): the job runs on min_gpus..max_gpus GPUs;
  // max_gpus 0: rigid (exactly `gpus`). A duration job on n GPUs runs at (n / gpus)^scaling of
  // its trace speed (1: linear scaling); a steps job's speed model prices n itself.
  int min_gpus = 0;
  int max_gpus = 0;
  double scaling = 1;
};

inline bool IsElastic(const JobSpec& j) { return j.max_gpus > 0; }
// The fewest GPUs the job runs on (its request when rigid).
inline int MinGpus(const JobSpec& j) { return IsElastic(j) ? j.min_gpus : j.gpus; }
inline int MaxGpus(const JobSpec& j) { return IsElastic(j) ? j.max_gpus : j.gpus; }

// Total GPU demand in milli-GPUs (what the job holds while it runs).
inline int64_t DemandMilli(const JobSpec& j) { return j.gpus == 1 ? j.gpu_milli : int64_t{j.gpus} * 1000; }

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_JOB_H_
