// The `tiresias` cluster policy; its parameters in policies/tiresias.h.
#include "dlsim/cluster/policies/tiresias.h"

#include <algorithm>
#include <memory>

namespace dlsim::cluster {
namespace {

const ParamSpec kThresholds =
    IncreasingListKey("queue_thresholds", {3200}, 1e15, "tiresias: GPU-seconds between queues");
const ParamSpec kStarvation =
    NumberKey("starvation", 0, 0, 1e6, "tiresias: promote after waiting > k x last run; 0 off");

// Tiresias' discretised 2D-LAS: queue k holds jobs whose attained GPU-seconds lie between
// thresholds k-1 and k; lower queues first, FIFO (arrival) within a queue. A job demotes when
// its service crosses the next threshold (NextKeyChange), so no rounds are needed. With
// starvation k > 0, a job that has waited longer than k times its last run is promoted to
// queue 0 (the paper's STARVELIMIT knob).
class Tiresias final : public SchedulingPolicy {
 public:
  explicit Tiresias(const TiresiasParams& p) : thresholds_(p.queue_thresholds), starvation_(p.starvation) {
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

std::vector<ParamSpec> TiresiasParams::Keys() { return {kThresholds, kStarvation}; }

TiresiasParams TiresiasParams::From(const ParamSet& set) {
  TiresiasParams p;
  p.queue_thresholds = set.Numbers(kThresholds);
  p.starvation = set.Number(kStarvation);
  return p;
}

void RegisterTiresias(PolicyRegistry& reg) {
  reg.RegisterBuiltin(
      "tiresias", "discretised 2D-LAS: GPU-second queues, FIFO within a queue (preemptive)",
      [](const PolicyParams& p) { return std::make_unique<Tiresias>(TiresiasParams::From(p.own)); },
      TiresiasParams::Keys());
}

}  // namespace dlsim::cluster
