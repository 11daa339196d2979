// The `fifo` cluster policy (first come, first served); registered in builtin_list.inc.
#include <memory>

#include "dlsim/cluster/policy.h"

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

}  // namespace

void RegisterFifo(PolicyRegistry& reg) {
  reg.RegisterBuiltin("fifo", "first come, first served (non-preemptive; backfill optional)",
                      [](const PolicyParams& p) { return std::make_unique<Fifo>(p); });
}

}  // namespace dlsim::cluster
