#include "dlsim/serve/moe_step.h"

#include <algorithm>
#include <cmath>

namespace dlsim::serve {

double ExpectedActiveExperts(int experts, int top_k, int64_t tokens) {
  if (experts <= 0 || top_k <= 0 || tokens <= 0) return 0;
  const double miss = 1.0 - std::min(1.0, static_cast<double>(top_k) / experts);  // one token skips an expert
  return experts * (1.0 - std::pow(miss, static_cast<double>(tokens)));
}

MoeStep MoeStepShape(const model::MoeSpec& moe, int64_t tokens, int tp, int ep) {
  MoeStep s;
  const double active = ExpectedActiveExperts(moe.experts, moe.top_k, tokens);
  if (active <= 0) return s;
  const double routed = static_cast<double>(tokens) * std::min(moe.top_k, moe.experts);
  s.tokens_per_expert = std::max<int64_t>(1, std::llround(routed / active));
  const bool expert_parallel = ep > 1;
  s.experts_per_gpu = expert_parallel ? active / ep : active;
  s.width = std::max(1, expert_parallel ? moe.expert_ffn_hidden : moe.expert_ffn_hidden / std::max(1, tp));
  return s;
}

}  // namespace dlsim::serve
