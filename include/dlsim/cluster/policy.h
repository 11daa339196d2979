// Scheduling policies: which jobs should hold GPUs now. Behind the registry `cluster-policy`
// (`dlsim list cluster-policy`).
//
// A policy ranks jobs by a priority key (lower first; ties by arrival, then id). The engine
// (simulator.h) turns the ranking into decisions:
//   - a non-preemptive policy starts waiting jobs in rank order while they fit; with backfill a
//     job that does not fit is skipped, without it the queue stops at the first such job;
//   - a preemptive policy picks, in rank order, the jobs that fit in the cluster's capacity,
//     preempts running jobs outside that set and starts the waiting ones inside it.
// The engine re-ranks on every arrival and completion, every Round() (when jobs are waiting),
// and at the earliest NextKeyChange() of the running jobs (Tiresias' queue demotions), so a
// policy whose keys change in steps needs no rounds.
//
// Builtins: fifo, sjf (oracle duration), srtf (oracle remaining time, preemptive), las
// (least attained GPU-service, preemptive, in rounds), tiresias (discretised 2D-LAS: queues by
// attained GPU-seconds, FIFO within a queue, optional starvation promotion); allocation
// policies pollux, gavel, gavel-agnostic, aryl (aryl_policy.h) and easyscale,
// easyscale-homogeneous, easyscale-fixed (easyscale_policy.h).
#ifndef DLSIM_CLUSTER_POLICY_H_
#define DLSIM_CLUSTER_POLICY_H_

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/cluster/input_pipeline.h"
#include "dlsim/cluster/progress.h"
#include "dlsim/core/registry.h"

namespace dlsim::cluster {

struct Priority {
  double primary = 0;
  double secondary = 0;
  auto operator<=>(const Priority&) const = default;
};

// Parameters a scenario may set (`policy:` section); each policy reads those it uses.
struct PolicyParams {
  Duration round = Seconds(60);                   // las: re-rank period
  std::vector<double> queue_thresholds = {3200};  // tiresias: GPU-seconds between queues
  double starvation = 0;                          // tiresias: promote after waiting > k x last run; 0 off
  bool backfill = true;                           // non-preemptive policies
  // Decide only at rounds (every `round`), as round-based simulators do (Blox, Gavel): arrivals
  // and completions wait for the next round. Off: also at every arrival and completion.
  bool rounds_only = false;
  // pollux: between rounds, refresh the running jobs' speeds this often (their goodput changes
  // per epoch; the allocation stays); and the restart delay its objective charges (pollux.py).
  Duration pollux_refresh = Seconds(10);
  double pollux_restart_penalty_s = 30;
  // goldminer: cores per data worker (the unit in which idle CPUs are handed out), and how they
  // are split: by marginal gain (GoldMiner's rule) or equally among the input-bound jobs.
  double goldminer_worker_cores = 1;
  bool goldminer_equal_split = false;
  // aryl: give elastic jobs extra workers (the multiple-choice knapsack); false: base demands only.
  bool elastic = true;
  // aryl: which lent nodes to give back when the pool reclaims: "least-cost" (fewest preempted
  // jobs, greedily) or "random" (the ablation).
  std::string reclaim = "least-cost";
  // easyscale: seconds per step each extra EasyScaleThread on a GPU costs (its context switch).
  double switch_s = 0.005;
};

// What an allocation policy sees each round: the active jobs and their progress, the cluster, and
// the speed of a job on any GPU type and count (steps or seconds of work per second, on the packed
// shape: as few nodes as the count needs).
class AllocationView {
 public:
  virtual ~AllocationView() = default;
  virtual TimePoint now() const = 0;
  virtual const ClusterSpec& cluster() const = 0;
  // Job indices of the waiting and running jobs, in arrival order.
  virtual const std::vector<int>& active() const = 0;
  virtual const JobSpec& job(int j) const = 0;
  virtual const JobProgress& progress(int j) const = 0;
  // Work per second of job j on `gpus` GPUs of `gpu_type`, packed; 0 when it cannot run so.
  virtual double RateIf(int j, int gpu_type, int gpus) const = 0;
  // GPUs of `gpu_type` training may use now (fewer than the cluster's while a lendable pool,
  // capacity.h, keeps some of its nodes).
  virtual int64_t available_gpus(int gpu_type) const { return cluster().gpus_of_type(gpu_type); }
};

// What a job should hold after this round: `gpus` GPUs of `gpu_type` (0 GPUs: not run).
struct AllocationTarget {
  AllocationTarget() = default;
  AllocationTarget(int job_index, int type, int count) : job(job_index), gpu_type(type), gpus(count) {}
  int job = 0;
  int gpu_type = 0;
  int gpus = 0;
  // A mixed allocation (EasyScale): (gpu_type, gpus) parts, each placed on its type; when set,
  // `gpus` is their total and gpu_type is not used.
  std::vector<std::pair<int, int>> parts;
  // The job's work per second on this target when the policy prices it itself (a mixed
  // allocation no speed model covers); 0: the engine's speed of the placed shape.
  double rate = 0;
};

// A node of the lendable pool now lent to training, and the running jobs holding GPUs on it.
struct LentNode {
  int node = 0;
  std::vector<std::pair<int, int>> jobs;  // (job index, GPUs it holds on this node)
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  virtual bool Preemptive() const = 0;
  // True when a job's key never changes while it waits or runs (fifo, sjf): the engine keeps the
  // queue sorted instead of re-ranking it.
  virtual bool StaticKeys() const { return false; }
  // True when a waiting job's key does not change while it waits (las, srtf, tiresias without
  // starvation): the engine keeps the waiting jobs sorted and merges them with the running ones.
  virtual bool WaitingKeysStatic() const { return true; }
  virtual bool Backfill() const { return true; }
  // Period of re-ranking while jobs wait; Zero(): none.
  virtual Duration Round() const { return Duration::Zero(); }
  virtual Priority Key(const JobSpec& job, const JobProgress& p, TimePoint now) const = 0;
  // True when Key() is exactly {AttainedAt(job, p, now), 0} (las): a running job's key then grows
  // by its held GPUs per second, and the engine keeps the running jobs ordered incrementally
  // instead of re-ranking them at every pass (same decisions; docs/cluster.md "Cost").
  virtual bool KeyIsAttainedService() const { return false; }
  // True when keys change in steps that NextKeyChange() predicts (tiresias' demotions).
  virtual bool KeysChangeInSteps() const { return false; }
  // The next time a running job's key changes in a way that may reorder jobs; nullopt: never.
  virtual std::optional<TimePoint> NextKeyChange(const JobSpec& job, const JobProgress& p,
                                                 TimePoint now) const {
    return std::nullopt;
  }

  // Allocation policies (Gavel's max-min fairness, Pollux) decide each job's GPU type and count
  // every Round() instead of ranking jobs: the engine then calls Allocate() at every round while
  // jobs are active (not at arrivals and completions), resizes or preempts the running jobs whose
  // target changed and places the others. A job may get fewer or more GPUs than JobSpec::gpus
  // (elastic jobs). Ranking policies return false and never see Allocate(); an allocation policy's
  // Key() is only used to order the placements of one round.
  virtual bool Allocates() const { return false; }
  virtual std::vector<AllocationTarget> Allocate(const AllocationView& view) const { return {}; }

  // Data workers (GoldMiner, cluster/input_pipeline.h): after every pass the engine offers the CPU
  // cores that no running job uses for its own input pipeline (`idle_cores`, cluster-wide) and
  // the running input-bound jobs (`demands`, in job order); the policy returns the data-worker
  // cores of each demand (same order; they sum to at most idle_cores). The engine re-rates the
  // jobs whose speed changes. Policies that return false never see it (jobs use local cores only).
  virtual bool ScalesDataWorkers() const { return false; }
  virtual std::vector<double> PlanDataWorkers(const std::vector<DataWorkerDemand>& demands,
                                              double idle_cores) const {
    return {};
  }

  // Capacity loaning (capacity.h): the pool takes `k` of the `lent` nodes back (lent is in
  // lending order, k <= its size). Returns k distinct node ids of `lent`; anything else is
  // completed by the default. Default: the nodes lent last. The jobs on the chosen nodes are
  // preempted, or shrunk when elastic (JobSpec::max_gpus) and left with at least min_gpus.
  virtual std::vector<int> ChooseReclaim(const AllocationView& view, const std::vector<LentNode>& lent,
                                         int k) const;
  // The fewest GPUs `job` may keep running on when a reclaim takes some of its GPUs; with fewer
  // it is preempted. Default: min_gpus (at least 1) of an elastic job; a rigid job never shrinks.
  virtual int ShrinkFloor(const JobSpec& job) const {
    return IsElastic(job) ? std::max(1, MinGpus(job)) : kMaxJobGpus + 1;
  }
};

using PolicyRegistry = Registry<SchedulingPolicy, const PolicyParams&>;
void RegisterBuiltinPolicies(PolicyRegistry& reg);
const PolicyRegistry& BuiltinPolicies();

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICY_H_
