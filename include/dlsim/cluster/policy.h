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
// Builtins, one file each under src/cluster/policies/ (listed in policies/builtin_list.inc): fifo,
// sjf (oracle duration), srtf (oracle remaining time, preemptive), las (least attained GPU-service,
// preemptive, in rounds), tiresias (discretised 2D-LAS: queues by attained GPU-seconds, FIFO within
// a queue, optional starvation promotion); allocation policies pollux, gavel, gavel-agnostic, aryl
// and easyscale, easyscale-homogeneous, easyscale-fixed (their headers in policies/).
#ifndef DLSIM_CLUSTER_POLICY_H_
#define DLSIM_CLUSTER_POLICY_H_

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dlsim/cluster/input_pipeline.h"
#include "dlsim/cluster/policy_params.h"
#include "dlsim/cluster/progress.h"
#include "dlsim/core/registry.h"

namespace dlsim::cluster {

struct Priority {
  double primary = 0;
  double secondary = 0;
  auto operator<=>(const Priority&) const = default;
};

// What every policy shares (`policy:` keys the engine itself uses), and the policy's own keys
// (`own`), which only the policy reads, through its own params struct (policies/*.h) and the keys
// it registers (policy_params.h). No field here belongs to one paper.
struct PolicyParams {
  Duration round = Seconds(60);  // re-rank / re-allocate period of round-based policies (round_s)
  bool backfill = true;          // non-preemptive policies
  // Decide only at rounds (every `round`), as round-based simulators do (Blox, Gavel): arrivals
  // and completions wait for the next round. Off: also at every arrival and completion.
  bool rounds_only = false;
  ParamSet own;  // e.g. tiresias' queue_thresholds, goldminer_worker_cores (each policy's header)
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

// Capability: a policy that decides each job's GPU type and count every Round() (Gavel's max-min
// fairness, Pollux, Aryl, EasyScale) instead of only ranking jobs. The engine then calls Allocate()
// at every round while jobs are active (not at arrivals and completions), resizes or preempts the
// running jobs whose target changed and places the others. A job may get fewer or more GPUs than
// JobSpec::gpus (elastic jobs). The policy's Key() then only orders the placements of one round.
class GpuAllocator {
 public:
  virtual ~GpuAllocator() = default;
  virtual std::vector<AllocationTarget> Allocate(const AllocationView& view) const = 0;
};

// Capability: data workers (GoldMiner, cluster/input_pipeline.h). After every pass the engine offers
// the CPU cores that no running job uses for its own input pipeline (`idle_cores`, cluster-wide) and
// the running input-bound jobs (`demands`, in job order); the planner returns the data-worker cores
// of each demand (same order; they sum to at most idle_cores). The engine re-rates the jobs whose
// speed changes. Without this capability jobs use local cores only.
class DataWorkerPlanner {
 public:
  virtual ~DataWorkerPlanner() = default;
  virtual std::vector<double> PlanDataWorkers(const std::vector<DataWorkerDemand>& demands,
                                              double idle_cores) const = 0;
};

// Capability: how a policy answers capacity loaning (capacity.h). Every policy has one; the
// defaults below are what a policy that does not override reclaim_rules() gets.
class ReclaimRules {
 public:
  virtual ~ReclaimRules() = default;
  // The pool takes `k` of the `lent` nodes back (lent is in lending order, k <= its size). Returns k
  // distinct node ids of `lent`; anything else is completed by the engine. Default: the nodes lent
  // last. The jobs on the chosen nodes are preempted, or shrunk when elastic (JobSpec::max_gpus) and
  // left with at least ShrinkFloor GPUs.
  virtual std::vector<int> ChooseReclaim(const AllocationView& view, const std::vector<LentNode>& lent,
                                         int k) const;
  // The fewest GPUs `job` may keep running on when a reclaim takes some of its GPUs; with fewer it
  // is preempted. Default: min_gpus (at least 1) of an elastic job; a rigid job never shrinks.
  virtual int ShrinkFloor(const JobSpec& job) const {
    return IsElastic(job) ? std::max(1, MinGpus(job)) : kMaxJobGpus + 1;
  }
};

// The ranking contract every policy implements, plus the capabilities it may add.
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

  // Capabilities (null: the policy has none). A policy implementing one returns itself.
  virtual const GpuAllocator* allocator() const { return nullptr; }
  virtual const DataWorkerPlanner* data_workers() const { return nullptr; }
  // Never null: the default rules unless the policy overrides.
  virtual const ReclaimRules& reclaim_rules() const;
};

// A registry of policies whose entries also carry the `policy:` keys they read (policy_params.h).
// Adding a policy: its own file under policies/ and one line in policies/builtin_list.inc.
class PolicyRegistry : public Registry<SchedulingPolicy, const PolicyParams&> {
 public:
  using Registry::Registry;
  // Registers `name` with the keys it reads; aborts on a duplicate name (builtins only).
  void RegisterBuiltin(std::string name, std::string description, Factory factory,
                       std::vector<ParamSpec> keys = {});
  // The keys `name` reads (empty for an unknown name).
  const std::vector<ParamSpec>& Keys(const std::string& name) const;
  // Every key of every policy, once (a key two policies share, e.g. the EasyScale variants', is
  // listed once, from the first policy by name), sorted by key.
  std::vector<ParamSpec> AllKeys() const;

 private:
  std::map<std::string, std::vector<ParamSpec>> keys_;
};

void RegisterBuiltinPolicies(PolicyRegistry& reg);
const PolicyRegistry& BuiltinPolicies();

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICY_H_
