// The `las` cluster policy (least attained service); registered in builtin_list.inc.
#include <memory>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {
namespace {

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

}  // namespace

void RegisterLas(PolicyRegistry& reg) {
  reg.RegisterBuiltin("las", "least attained GPU-service first, re-ranked every round (preemptive)",
                      [](const PolicyParams& p) { return std::make_unique<Las>(p); });
}

}  // namespace dlsim::cluster
