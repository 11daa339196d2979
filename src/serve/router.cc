#include "dlsim/serve/router.h"

#include <memory>

namespace dlsim::serve {
namespace {

class RoundRobin final : public Router {
 public:
  int Pick(const std::vector<int64_t>& outstanding) override {
    const int i = next_ % static_cast<int>(outstanding.size());
    next_ = i + 1;
    return i;
  }

 private:
  int next_ = 0;
};

class LeastOutstandingTokens final : public Router {
 public:
  int Pick(const std::vector<int64_t>& outstanding) override {
    int best = 0;
    for (int i = 1; i < static_cast<int>(outstanding.size()); ++i) {
      if (outstanding[i] < outstanding[best]) best = i;
    }
    return best;
  }
};

}  // namespace

void RegisterRouters(RouterRegistry& reg) {
  reg.RegisterBuiltin("round-robin", "replicas in turn", [] { return std::make_unique<RoundRobin>(); });
  reg.RegisterBuiltin("least-outstanding-tokens", "the replica with the fewest tokens still to process",
                      [] { return std::make_unique<LeastOutstandingTokens>(); });
}

}  // namespace dlsim::serve
