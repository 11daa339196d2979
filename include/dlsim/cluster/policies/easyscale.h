// EasyScale (Li et al., "EasyScale: Elastic Training with Consistent Accuracy and Improved
// Utilization on GPUs", SC'23; arXiv 2208.14228): a job has a fixed number of logical workers,
// EasyScaleThreads (ESTs; JobSpec::gpus of them, which fixes its training semantics), run on
// whatever set of GPUs of any types it holds, one after another on each GPU. Registered as
// "easyscale", with the ablation "easyscale-homogeneous" (elastic, but one GPU type per job) and
// the baseline "easyscale-fixed" (a job runs only on exactly `gpus` GPUs of one type, FIFO).
//
// Speeds. An EST's mini-batch takes t_g = 1 / RateIf(j, g, 1) seconds on a GPU of type g (the
// job's one-GPU speed there: a throughput table or `train`). A GPU hosting n ESTs runs them in
// turn, each extra one costing a context switch s (PolicyParams::switch_s), so a step takes
//   T = max over the job's GPUs of (n_i t_i + (n_i - 1) s),
// and the job makes N / T steps per second, N = its ESTs (a step of N ESTs is N mini-batches:
// the unit of a throughput table's N-GPU steps/s, which counts a step per worker; the gradient
// all-reduce is not priced separately).
// Intra-job scheduler (AssignThreads): each EST in turn goes to the GPU whose step time would
// grow least ((n_i + 1) t_i + n_i s), which minimises T; GPUs left without an EST are returned.
// Inter-job scheduler (each round, and at once after a capacity change): running jobs keep their
// GPUs while the capacity holds them; then the idle GPUs go one at a time to the (job, type)
// whose throughput, relative to the job's speed on its reference placement, grows most, never
// more GPUs than a job has ESTs. Rescale cost: the engine's restart_overhead_s on every change.
// Thread-safe: the policy keeps no state.
#ifndef DLSIM_CLUSTER_POLICIES_EASYSCALE_H_
#define DLSIM_CLUSTER_POLICIES_EASYSCALE_H_

#include <memory>
#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// The intra-job assignment: `threads` ESTs over GPUs with per-EST step times `step_s` (> 0):
// counts per GPU minimising max_i (n_i t_i + (n_i - 1) switch_s) (greedy water-filling; exact
// for this bottleneck objective). Ties go to the earlier GPU.
std::vector<int> AssignThreads(int threads, const std::vector<double>& step_s, double switch_s);
// The step time of an assignment: max_i over GPUs with n_i > 0 of n_i t_i + (n_i - 1) switch_s.
double StepTime(const std::vector<int>& counts, const std::vector<double>& step_s, double switch_s);

enum class EasyScaleMode { kHeterogeneous, kHomogeneous, kFixed };
// Its `policy:` key (besides round_s, backfill): switch_s, the seconds per step each extra
// EasyScaleThread on a GPU costs (its context switch).
struct EasyScaleParams {
  double switch_s = 0.005;
  static std::vector<ParamSpec> Keys();
  static EasyScaleParams From(const ParamSet& set);
};

std::unique_ptr<SchedulingPolicy> MakeEasyScalePolicy(const PolicyParams& params, EasyScaleMode mode);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_EASYSCALE_H_
