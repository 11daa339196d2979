// The Pollux allocation policy (Qiao et al., OSDI'21 §4; AdaptDL artifact simulator/pollux.py and
// simulator.py's get_pollux_job_info), registered as "pollux".
//
// Every Round() (on a grid of whole rounds from time 0) it chooses each active job's GPU count
// to maximise Pollux's fitness: the power mean with p = -1 of the jobs' scaled speedups,
//   speedup_j(c) = rate_j(c) / rate_j(fair),  fair = ceil(G / J)  (G GPUs, J active jobs),
//   scaled = speedup x N / G  (N nodes: a node's worth of GPUs has speedup ~1),
//   x max(age - restarts x D, 0) / (age + D) when c differs from the job's current count
//   (the restart penalty, D = pollux_restart_penalty_s), a job that has never run scales
//   linearly (c / fair: Pollux has no profile for it yet), and a job may get at most twice the
//   most GPUs it has run on (at least 1), as Pollux's max_replicas grows with its profile.
// rate_j(c) is the engine's speed of job j on c packed GPUs now (AllocationView::RateIf; with a
// Pollux speed entry, its goodput), so the policy works with any speed model.
// Pollux searches per-node allocations with a genetic algorithm (NSGA-II, 100 x 100); the
// fitness is a sum of per-job terms over counts, so dlsim maximises it exactly by dynamic
// programming over (job, GPUs used), O(J x G x C) for counts up to C, and leaves node placement
// to the engine's placement policy. Between rounds it wakes the engine every pollux_refresh to
// refresh the running jobs' speeds without changing their allocations.
// Uses GPU type 0 only (Pollux's clusters are homogeneous). Not thread-safe: one instance per
// simulation (it remembers its last round).
#ifndef DLSIM_CLUSTER_POLICIES_POLLUX_H_
#define DLSIM_CLUSTER_POLICIES_POLLUX_H_

#include <memory>
#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// Pollux's fitness of one allocation: sum over jobs of 1 / (scaled speedup + 1e-3) (lower is
// better; the p = -1 power mean is J over this). speedups[j][c]: job j's scaled speedup on c GPUs.
double PolluxFitnessSum(const std::vector<std::vector<double>>& speedups, const std::vector<int>& counts);

// The counts (counts[j] < speedups[j].size(), sum <= gpus) minimising PolluxFitnessSum; ties go
// to `prefer[j]` (the current count), then to fewer GPUs. Exact.
std::vector<int> SolvePolluxCounts(const std::vector<std::vector<double>>& speedups, int gpus,
                                   const std::vector<int>& prefer);

// Its `policy:` keys (besides round_s): pollux_refresh_s (between rounds, refresh the running jobs'
// speeds this often: their goodput changes per epoch; the allocation stays) and
// pollux_restart_penalty_s (the restart delay its objective charges, pollux.py).
struct PolluxParams {
  Duration refresh = Seconds(10);
  double restart_penalty_s = 30;
  static std::vector<ParamSpec> Keys();
  static PolluxParams From(const ParamSet& set);
};

std::unique_ptr<SchedulingPolicy> MakePolluxPolicy(const PolicyParams& params);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_POLLUX_H_
