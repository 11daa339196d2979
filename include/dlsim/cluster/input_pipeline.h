// Input pipelines of jobs whose preprocessing runs on CPUs (GoldMiner, Zhao et al., SIGMOD'23):
// a job's speed is the least of its GPU rate and the rate at which its input can be prepared.
//
//   local share  L = the job's part of the CPU cores of the nodes it runs on, in proportion to the
//                GPUs it holds there (cores x held GPUs / node GPUs; a CPU-only or single-node job
//                with a CPU request gets its request), and the same part of the nodes' NICs;
//   remote cores D = data workers on idle CPUs elsewhere (given by a policy that scales data
//                workers, e.g. goldminer); their output, input_bytes per unit of work, crosses the
//                job's NIC share N (bytes/s);
//   rate = min(gpu_rate, L / c + min(D / c, N / b)),  c = input_core_s, b = input_bytes.
// A job with c = 0, or on nodes that do not track CPU cores (0), is never input-bound. A NIC of 0 bytes/s is
// "unknown" and does not limit. Pure functions; thread-safe.
//
//   InputShare s = InputShareOf(job, allocation, spec);
//   double rate = InputBoundRate(job, gpu_rate, s, /*remote_cores=*/0);   // the baseline
#ifndef DLSIM_CLUSTER_INPUT_PIPELINE_H_
#define DLSIM_CLUSTER_INPUT_PIPELINE_H_

#include "dlsim/cluster/cluster_spec.h"
#include "dlsim/cluster/cluster_state.h"
#include "dlsim/cluster/job.h"

namespace dlsim::cluster {

struct InputShare {
  double local_cores = 0;
  double nic_bytes_per_s = 0;  // 0: unknown, not a limit
};

// The job's share of its nodes' cores and NICs under allocation `a`.
InputShare InputShareOf(const JobSpec& job, const Allocation& a, const ClusterSpec& spec);

// Work per second of `job` at `gpu_rate` with its local share and `remote_cores` data-worker cores.
double InputBoundRate(const JobSpec& job, double gpu_rate, const InputShare& share, double remote_cores);

// One running input-bound job as a data-worker planner sees it.
struct DataWorkerDemand {
  int job = 0;             // the engine's job index (arrival rank)
  double gpus = 0;         // GPUs held
  double gpu_rate = 0;     // work/s when input is free
  double core_s = 0;       // CPU core-seconds per unit of work (JobSpec::input_core_s), > 0
  double local_cores = 0;  // its local share L
  double remote_cap = 0;   // most work/s remote workers can feed it (N / b); infinity when unlimited
};

// Work/s of a demand with `remote_cores` data-worker cores (the formula above).
double DemandRate(const DataWorkerDemand& d, double remote_cores);

// Cores the demand's own input pipeline uses on its nodes: min(L, c x gpu_rate).
double LocalCoresUsed(const DataWorkerDemand& d);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_INPUT_PIPELINE_H_
