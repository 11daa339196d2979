#include "dlsim/cluster/policy.h"

#include <algorithm>

#include "dlsim/cluster/aryl_policy.h"
#include "dlsim/cluster/easyscale_policy.h"
#include "dlsim/cluster/gavel_policy.h"
#include "dlsim/cluster/goldminer_policy.h"
#include "dlsim/cluster/pollux_policy.h"

namespace dlsim::cluster {
namespace {

// First come, first served: rank by arrival.
class Fifo final : public SchedulingPolicy {
 public:
  explicit Fifo(const PolicyParams& p) : backfill_(p.backfill) {}
  bool Preemptive() const override { return false; }
  bool StaticKeys() const override { return true; }
  bool Backfill() const override { return backfill_; }
  Priority Key(const JobSpec& job, const JobProgress&, TimePoint) const override {
    return {job.arrival.ToSeconds(), 0};
  }

 private:
  bool backfill_;
};

// Shortest job first with oracle knowledge of the job's time on its best placement.
class Sjf final : public SchedulingPolicy {
 public:
  explicit Sjf(const PolicyParams& p) : backfill_(p.backfill) {}
  bool Preemptive() const override { return false; }
  bool StaticKeys() const override { return true; }
  bool Backfill() const override { return backfill_; }
  Priority Key(const JobSpec& job, const JobProgress& p, TimePoint) const override {
    return {job.work / p.reference_rate, 0};
  }

 private:
  bool backfill_;
};

// Shortest remaining time first (oracle), preemptive.
class Srtf final : public SchedulingPolicy {
 public:
  bool Preemptive() const override { return true; }
  Priority Key(const JobSpec&, const JobProgress& p, TimePoint now) const override {
    return {RemainingAt(p, now) / p.reference_rate, 0};
  }
};

// Least attained service (GPU-seconds) first, preemptive, re-ranked every round.
class Las final : public SchedulingPolicy {
 public:
  explicit Las(const PolicyParams& p) : round_(p.round) {}
  bool Preemptive() const override { return true; }
  Duration Round() const override { return round_; }
  Priority Key(const JobSpec& job, const JobProgress& p, TimePoint now) const override {
    return {AttainedAt(job, p, now), 0};
  }
  bool KeyIsAttainedService() const override { return true; }

 private:
  Duration round_;
};

// Tiresias' discretised 2D-LAS: queue k holds jobs whose attained GPU-seconds lie between
// thresholds k-1 and k; lower queues first, FIFO (arrival) within a queue. A job demotes when
// its service crosses the next threshold (NextKeyChange), so no rounds are needed. With
// starvation k > 0, a job that has waited longer than k times its last run is promoted to
// queue 0 (the paper's STARVELIMIT knob).
class Tiresias final : public SchedulingPolicy {
 public:
  explicit Tiresias(const PolicyParams& p) : thresholds_(p.queue_thresholds), starvation_(p.starvation) {
    std::sort(thresholds_.begin(), thresholds_.end());
  }
  bool Preemptive() const override { return true; }
  bool WaitingKeysStatic() const override { return starvation_ == 0; }
  bool KeysChangeInSteps() const override { return true; }
  Priority Key(const JobSpec& job, const JobProgress& p, TimePoint now) const override {
    const double attained = AttainedAt(job, p, now);
    double queue = static_cast<double>(std::upper_bound(thresholds_.begin(), thresholds_.end(), attained) -
                                       thresholds_.begin());
    if (starvation_ > 0 && p.status == JobStatus::kWaiting && p.executed_s > 0 &&
        (now - p.since).ToSeconds() > starvation_ * p.executed_s)
      queue = 0;
    return {queue, job.arrival.ToSeconds()};
  }
  std::optional<TimePoint> NextKeyChange(const JobSpec& job, const JobProgress& p,
                                         TimePoint now) const override {
    const double attained = AttainedAt(job, p, now);
    auto next = std::upper_bound(thresholds_.begin(), thresholds_.end(), attained);
    const double gpus = static_cast<double>(DemandMilli(job)) / 1000.0;
    if (next == thresholds_.end() || gpus <= 0) return std::nullopt;
    return now + Seconds((*next - attained) / gpus) + Nanos(1);
  }

 private:
  std::vector<double> thresholds_;
  double starvation_;
};

}  // namespace

std::vector<int> SchedulingPolicy::ChooseReclaim(const AllocationView&, const std::vector<LentNode>& lent,
                                                 int k) const {
  std::vector<int> out;
  for (int i = static_cast<int>(lent.size()) - 1; i >= 0 && static_cast<int>(out.size()) < k; --i)
    out.push_back(lent[i].node);
  return out;
}

void RegisterBuiltinPolicies(PolicyRegistry& reg) {
  reg.RegisterBuiltin("fifo", "first come, first served (non-preemptive; backfill optional)",
                      [](const PolicyParams& p) { return std::make_unique<Fifo>(p); });
  reg.RegisterBuiltin("sjf", "shortest job first, oracle duration (non-preemptive)",
                      [](const PolicyParams& p) { return std::make_unique<Sjf>(p); });
  reg.RegisterBuiltin("srtf", "shortest remaining time first, oracle (preemptive)",
                      [](const PolicyParams&) { return std::make_unique<Srtf>(); });
  reg.RegisterBuiltin("las", "least attained GPU-service first, re-ranked every round (preemptive)",
                      [](const PolicyParams& p) { return std::make_unique<Las>(p); });
  reg.RegisterBuiltin("tiresias", "discretised 2D-LAS: GPU-second queues, FIFO within a queue (preemptive)",
                      [](const PolicyParams& p) { return std::make_unique<Tiresias>(p); });
  reg.RegisterBuiltin("pollux", "goodput-driven elastic allocation each round (Pollux, OSDI'21)",
                      MakePolluxPolicy);
  reg.RegisterBuiltin(
      "gavel", "Gavel's heterogeneity-aware max-min fairness: an LP per round (GLPK), rounds of round_s",
      [](const PolicyParams& p) { return MakeGavelPolicy({.heterogeneity_aware = true, .round = p.round}); });
  reg.RegisterBuiltin("gavel-agnostic",
                      "Gavel's max-min fairness over equal time shares, blind to GPU types' speeds",
                      [](const PolicyParams& p) {
                        return MakeGavelPolicy({.heterogeneity_aware = false, .round = p.round});
                      });
  reg.RegisterBuiltin("goldminer",
                      "GoldMiner (SIGMOD'23): FIFO GPU jobs + data workers on idle CPUs by marginal gain",
                      MakeGoldMinerPolicy);
  reg.RegisterBuiltin(
      "aryl",
      "Aryl/Lyra (EuroSys'23): base demands FIFO, elastic extras by knapsack, reclaim of lent "
      "nodes by least preemption cost (keys elastic, reclaim)",
      MakeArylPolicy);
  reg.RegisterBuiltin(
      "easyscale",
      "EasyScale (SC'23): fixed EasyScaleThreads on any mix of GPU types, idle GPUs to the "
      "largest throughput gain",
      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kHeterogeneous); });
  reg.RegisterBuiltin(
      "easyscale-homogeneous", "EasyScale with one GPU type per job (ablation)",
      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kHomogeneous); });
  reg.RegisterBuiltin("easyscale-fixed",
                      "EasyScale's baseline: a job runs only on exactly its GPUs of one type, FIFO",
                      [](const PolicyParams& p) { return MakeEasyScalePolicy(p, EasyScaleMode::kFixed); });
}

const PolicyRegistry& BuiltinPolicies() {
  static const PolicyRegistry* reg = [] {
    auto* r = new PolicyRegistry("cluster-policy");
    RegisterBuiltinPolicies(*r);
    return r;
  }();
  return *reg;
}

}  // namespace dlsim::cluster
