#include "dlsim/gnn/dataset.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "dlsim/core/rng.h"

namespace dlsim::gnn {

Result<NodeSplit> SplitNodes(int64_t num_nodes, const SplitOptions& o) {
  if (o.train < 0 || o.val < 0 || o.test < 0)
    return Error::InvalidArgument("split fractions must not be negative");
  if (o.train + o.val + o.test > 1 + 1e-9)
    return Error::InvalidArgument("split fractions sum to " + std::to_string(o.train + o.val + o.test) +
                                  ", more than 1");
  const auto n = static_cast<size_t>(num_nodes);
  auto count = [n](double f) { return static_cast<size_t>(std::llround(f * static_cast<double>(n))); };
  const size_t n_train = std::min(n, count(o.train));
  const size_t n_val = std::min(n - n_train, count(o.val));
  const size_t n_test = std::min(n - n_train - n_val, count(o.test));
  if (n_train == 0)
    return Error::InvalidArgument("the split has no training node (train fraction " +
                                  std::to_string(o.train) + " of " + std::to_string(num_nodes) + " nodes)");
  std::vector<NodeId> perm(n);
  std::iota(perm.begin(), perm.end(), NodeId{0});
  Rng rng = Rng(o.seed).Stream("gnn/split");
  for (size_t i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng.NextBelow(i + 1)]);
  NodeSplit s;
  auto take = [&perm](size_t from, size_t k) {
    std::vector<NodeId> out(perm.begin() + static_cast<int64_t>(from),
                            perm.begin() + static_cast<int64_t>(from + k));
    std::sort(out.begin(), out.end());
    return out;
  };
  s.train = take(0, n_train);
  s.val = take(n_train, n_val);
  s.test = take(n_train + n_val, n_test);
  return s;
}

}  // namespace dlsim::gnn
