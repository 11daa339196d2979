// The event-driven cluster engine behind cluster::Simulate (private to the module).
//
// Events: a job's arrival (one pending at a time: arrivals are chained in arrival order), its
// completion, and a wake-up for re-ranking (a policy round while jobs wait, or the earliest key
// change of a running job). Every arrival, completion and wake-up requests one scheduling pass
// at the current instant; passes requested at the same instant coalesce into one, which runs
// after every event of that instant that was already scheduled.
//
// Cost (docs/cluster.md): an event is O(log E) in the queue; a pass of a static-key policy is
// O(W_scanned + P x N) (W_scanned waiting jobs tried, P placements of O(N) nodes each); a pass of
// a preemptive policy is O(A log A + P x N) for A active jobs, except las on one GPU type, whose
// incremental pass (service_pass.cc) costs O(C + W_v log R + changes x (C + log R)) for C
// held-GPU classes, W_v waiting jobs visited and R running jobs.
#ifndef DLSIM_SRC_CLUSTER_ENGINE_H_
#define DLSIM_SRC_CLUSTER_ENGINE_H_

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "dlsim/cluster/options.h"
#include "dlsim/cluster/placement.h"
#include "dlsim/cluster/policy.h"
#include "dlsim/cluster/result.h"
#include "dlsim/core/event_queue.h"
#include "dlsim/report/sink.h"
#include "loan_book.h"
#include "service_order.h"

namespace dlsim::cluster {

// The utilisation series holds at most this many samples (a month at the default hour is 720): when it
// fills, adjacent samples are merged in pairs and the interval doubles, so a trace of any span gives a
// bounded series that still covers all of it.
inline constexpr size_t kMaxUtilSamples = 20000;

class Engine {
 public:
  Engine(const ClusterOptions& options, const SchedulingPolicy& policy, const PlacementPolicy& placement,
         report::Sink* sink);
  Result<ClusterResult> Run();

 private:
  using QueueKey = RankKey;  // key, arrival ns, id, job
  const JobSpec& Job(int j) const { return options_.jobs[order_[j]]; }
  QueueKey KeyOf(int j) const;

  void ScheduleArrival(size_t next);
  void OnArrival(int j);
  std::optional<std::string> CheckFits(int j);
  void RequestPass();
  void Pass();
  void PassStatic();
  void PassStaticBackfill();
  static int DemandClass(const JobSpec& job);
  void PassPreemptive();
  // The incremental pass of attained-service policies (service_pass.cc): the full pass's
  // preemptions and starts (in rank order), found without ranking every running job.
  struct ServicePlan {
    std::vector<int> preempt, start;
  };
  bool PassByService();             // false: it does not apply now (the full pass runs)
  bool ServicePassApplies() const;  // to this run: an attained-service policy on one GPU type
  ServicePlan PlanByService(int64_t free);
  // The jobs a preemptive pass considers, in rank order, each with whether it gets GPUs.
  std::vector<std::pair<int, bool>> RankFullSort();
  std::vector<std::pair<int, bool>> RankMerged();
  bool Take(int j, std::vector<int64_t>& budget, int64_t& total) const;
  std::vector<int64_t> Capacity() const;
  bool TryStart(int j);
  bool TryStartAs(int j, const JobSpec& as);
  void PassAllocate();
  void ApplyTargets(std::vector<AllocationTarget> targets);
  bool StartParts(int j, const std::vector<std::pair<int, int>>& parts, double rate);
  bool SameTarget(int j, const AllocationTarget& t) const;
  void RerateTo(int j, double rate);
  std::vector<int> AskReclaim(const std::vector<LentNode>& lent, int k) const;
  // Capacity loaning (loaning.cc): a lendable pool whose demand follows options_.capacity.
  void InitCapacity();
  void ApplyDemand();
  void Lend(int want);
  void Reclaim(int k);
  std::vector<LentNode> LentNodes() const;
  void ReclaimJob(int j, const std::vector<char>& gone);
  void Unwait(int j);
  bool CapacitySettled();
  bool NoProgressOverAPeriod();
  void FreezeCapacity(const std::string& why);
  void RecordCapacity();
  void CollectCapacity(ClusterSummary& s, int64_t total_gpus) const;
  double RateIf(int j, int gpu_type, int gpus) const;
  void Rerate(int j);
  class View;
  void Start(int j, Allocation a, double rate);
  void Stop(int j, JobStatus to);
  void ScheduleWake();
  void AddWaiting(int j);
  void RemoveActive(int j);
  void Account();
  void CoarsenSamples();
  void EmitSpan(int j);
  ClusterResult Collect();
  // Input pipelines (data_workers.cc, cluster/input_pipeline.h): a job's rate capped by its input,
  // the data-worker plan of a policy that scales data workers, and a running job's rate change.
  double CappedRate(int j, const Allocation& a, double gpu_rate) const;
  void ScaleDataWorkers();
  void SetRate(int j, double rate);

  const ClusterOptions& options_;
  const SchedulingPolicy& policy_;
  const PlacementPolicy& placement_;
  report::Sink* sink_;
  std::vector<size_t> order_;  // job indices in (arrival, id) order
  std::vector<JobProgress> prog_;
  std::vector<EventId> finish_event_;
  std::vector<std::string> reason_;
  ClusterState state_;
  ClusterState empty_;  // for reference placements
  EventQueue queue_;
  Rng rng_;
  // Static-key policies: the waiting jobs by whole-GPU demand (0: shares and CPU-only jobs), each
  // class in key order, so a backfilling pass visits only the classes that fit the free GPUs.
  std::map<int, std::set<QueueKey>> waiting_static_;
  size_t waiting_static_count_ = 0;
  std::vector<int> active_;  // waiting + running (preemptive policies)
  // Preemptive policies whose waiting jobs keep their keys: the waiting jobs in key order, so a
  // pass merges them with the (few) running jobs instead of sorting every active job.
  std::set<QueueKey> waiting_sorted_;
  std::vector<char> desired_;           // by job, scratch of a pass
  std::vector<QueueKey> running_keys_;  // scratch of RankMerged, in rank order
  std::vector<int> rank_order_;         // running jobs in the last RankMerged's order
  std::vector<char> in_rank_;           // by job: in rank_order_
  std::vector<int64_t> type_capacity_;  // milli-GPUs per GPU type
  // Attained-service policies on one GPU type (PassByService): the running jobs by service, and
  // their total demand in milli-GPUs.
  std::optional<ServiceOrder> service_;
  int64_t running_milli_ = 0;
  std::vector<int> active_pos_;
  std::vector<int> running_;
  std::vector<int> running_pos_;
  std::map<std::tuple<int, int, std::vector<int>, int64_t, int64_t, std::string>,
           std::pair<double, std::string>>
      reference_cache_;
  bool pass_requested_ = false;
  Duration round_;          // the policy's round, or policy_params.round for any policy in rounds_only mode
  bool round_due_ = false;  // the pass was requested by a wake-up (allocation policies run only then)
  bool merge_waiting_ = false;  // preemptive ranking policy with static waiting keys: waiting_sorted_ is kept
  std::vector<int> max_gpus_per_node_;  // per GPU type
  std::optional<EventId> wake_event_;
  TimePoint wake_at_;
  Status error_ = Status::Ok();
  // Utilisation accounting.
  TimePoint last_account_;
  double busy_integral_ = 0;  // milli-GPU-seconds
  double bucket_ = 0;
  TimePoint next_sample_;
  Duration sample_interval_;  // options' sample_interval, doubled each time the series is coarsened
  std::vector<UtilSample> samples_;
  int64_t passes_ = 0, preemptions_ = 0, resizes_ = 0;
  std::vector<double> gpu_rate_;    // by job: the rate of its current run before the input cap
  std::vector<double> data_cores_;  // by job: data-worker cores of its current run
  double total_cores_ = -1;         // cores of the whole cluster (computed on first use)
  LoanBook loan_;                   // capacity loaning (loaning.cc, loan_book.h)
};

}  // namespace dlsim::cluster

#endif  // DLSIM_SRC_CLUSTER_ENGINE_H_
