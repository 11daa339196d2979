// `dlsim train --chakra DIR`: the GPUs and process groups of a layout (see train_chakra.h).
#include "train_chakra.h"

#include <fmt/format.h>

namespace dlsim::app {

Result<report::ChakraLayout> ChakraLayoutOf(const train::ParallelPlan& p, int processes) {
  if (processes <= 0 || processes % p.pp != 0 || p.dp % (processes / p.pp) != 0)
    return Error::InvalidArgument(
        fmt::format("{} simulated pipeline ranks do not map onto pp {} x dp {}", processes, p.pp, p.dp));
  const int replicas = processes / p.pp, stage = p.tp * p.cp * p.dp;
  report::ChakraLayout layout;
  auto& dp_groups = layout.groups["dp"];
  auto& edp_groups = layout.groups["edp"];
  for (int r = 0; r < p.pp; ++r) {
    for (int d = 0; d < p.dp; ++d)
      for (int c = 0; c < p.cp; ++c)
        for (int t = 0; t < p.tp; ++t)
          layout.ranks[(d % replicas) * p.pp + r].push_back(((r * p.dp + d) * p.cp + c) * p.tp + t);
    for (int t = 0; t < p.tp; ++t) {  // the weight group of (r, t): every (d, c)
      std::vector<int>& g = dp_groups.emplace_back();
      for (int d = 0; d < p.dp; ++d)
        for (int c = 0; c < p.cp; ++c) g.push_back(((r * p.dp + d) * p.cp + c) * p.tp + t);
    }
    for (int e = 0; e < p.etp * p.ep; ++e) {  // an expert shard's data-parallel ranks: every edp index
      std::vector<int>& g = edp_groups.emplace_back();
      for (int j = e; j < stage; j += p.etp * p.ep) g.push_back(r * stage + j);
    }
  }
  return layout;
}

}  // namespace dlsim::app
