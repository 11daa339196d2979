// The `sjf` cluster policy (shortest job first); registered in builtin_list.inc.
#include <memory>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {
namespace {

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

}  // namespace

void RegisterSjf(PolicyRegistry& reg) {
  reg.RegisterBuiltin("sjf", "shortest job first, oracle duration (non-preemptive)",
                      [](const PolicyParams& p) { return std::make_unique<Sjf>(p); });
}

}  // namespace dlsim::cluster
