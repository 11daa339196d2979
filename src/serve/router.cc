#include "dlsim/serve/router.h"

#include <algorithm>
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

// SGLang router's cache_aware policy (sgl-router, CacheAwareConfig defaults: cache_threshold 0.5,
// balance_abs_threshold 32, balance_rel_threshold 1.0001; load = requests in flight): when the loads are out
// of balance (max - min > 32 and max > 1.0001 min) the least loaded replica; else the replica holding the
// longest prefix of the prompt when it is more than half of it; else the one whose cache holds least (of
// equal ones, the least loaded). The SGLang router matches against its own radix tree of the text it routed;
// dlsim reads the replicas' caches.
class CacheAware final : public Router {
 public:
  int Pick(const std::vector<int64_t>& outstanding) override {
    return LeastOutstandingTokens().Pick(outstanding);
  }
  int Pick(const RouteContext& c) override {
    const auto [lo, hi] = std::minmax_element(c.requests.begin(), c.requests.end());
    if (*hi - *lo > kBalanceAbs && static_cast<double>(*hi) > kBalanceRel * static_cast<double>(*lo))
      return static_cast<int>(lo - c.requests.begin());
    const auto best = std::max_element(c.cached_tokens.begin(), c.cached_tokens.end());
    if (static_cast<double>(*best) > kCacheThreshold * static_cast<double>(c.prompt_tokens))
      return static_cast<int>(best - c.cached_tokens.begin());
    int least = 0;  // the smallest cache; of equal ones (none cached), the least loaded
    for (int i = 1; i < static_cast<int>(c.cache_blocks.size()); ++i) {
      if (std::pair(c.cache_blocks[i], c.requests[i]) < std::pair(c.cache_blocks[least], c.requests[least]))
        least = i;
    }
    return least;
  }
  bool reads_cache() const override { return true; }

 private:
  static constexpr int64_t kBalanceAbs = 32;
  static constexpr double kBalanceRel = 1.0001, kCacheThreshold = 0.5;
};

}  // namespace

void RegisterRouters(RouterRegistry& reg) {
  reg.RegisterBuiltin("round-robin", "replicas in turn", [] { return std::make_unique<RoundRobin>(); });
  reg.RegisterBuiltin("least-outstanding-tokens", "the replica with the fewest tokens still to process",
                      [] { return std::make_unique<LeastOutstandingTokens>(); });
  reg.RegisterBuiltin(
      "cache-aware",
      "SGLang router's cache_aware: balance first, then the replica caching most of the prompt",
      [] { return std::make_unique<CacheAware>(); });
}

}  // namespace dlsim::serve
