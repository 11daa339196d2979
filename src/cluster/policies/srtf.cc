// The `srtf` cluster policy (shortest remaining time first); registered in builtin_list.inc.
#include <memory>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {
namespace {

// Shortest remaining time first (oracle), preemptive.
class Srtf final : public SchedulingPolicy {
 public:
  bool Preemptive() const override { return true; }
  Priority Key(const JobSpec&, const JobProgress& p, TimePoint now) const override {
    return {RemainingAt(p, now) / p.reference_rate, 0};
  }
};

}  // namespace

void RegisterSrtf(PolicyRegistry& reg) {
  reg.RegisterBuiltin("srtf", "shortest remaining time first, oracle (preemptive)",
                      [](const PolicyParams&) { return std::make_unique<Srtf>(); });
}

}  // namespace dlsim::cluster
