#include "dlsim/train/chain_order.h"

#include <algorithm>
#include <string>

namespace dlsim::train {

std::vector<int> ChainBackwardOrder(const std::vector<int>& chain_of) {
  std::vector<int> order;
  order.reserve(chain_of.size());
  const int n = static_cast<int>(chain_of.size());
  for (int i = 0; i < n;) {
    int j = i + 1;
    if (chain_of[i] >= 0) {
      while (j < n && chain_of[j] == chain_of[i]) ++j;
    }
    for (int k = j - 1; k >= i; --k) order.push_back(k);
    i = j;
  }
  return order;
}

Result<PipeOrder> ChainAwareOrder(const PipeShape& shape, const std::vector<int>& backward,
                                  bool all_forward_first) {
  const int m = shape.micro_batches;
  if (shape.chunks != 1)
    return Error::InvalidArgument(
        "chained micro-batches (chunkflow) need a non-interleaved schedule (1f1b or "
        "gpipe); found " +
        std::to_string(shape.chunks) + " chunks per rank");
  std::vector<int> sorted = backward;
  std::sort(sorted.begin(), sorted.end());
  bool permutation = static_cast<int>(sorted.size()) == m;
  for (int i = 0; permutation && i < m; ++i) permutation = sorted[i] == i;
  if (!permutation)
    return Error::InvalidArgument("chain backward order is not a permutation of the micro-batches");
  PipeOrder order(static_cast<size_t>(shape.stages));
  for (int r = 0; r < shape.stages; ++r) {
    const int warm = all_forward_first ? m : std::min(shape.stages - 1 - r, m);
    auto& out = order[static_cast<size_t>(r)];
    int forwards = 0;
    for (int k = 0; k < m; ++k) {
      const int need = std::min(m, std::max(k + 1 + warm, backward[k] + 1));
      while (forwards < need) out.push_back({true, forwards++, 0});
      out.push_back({false, backward[k], 0});
    }
  }
  return order;
}

}  // namespace dlsim::train
