// Greedy largest-first assignment of documents to micro-batches under a capacity rule, shared
// by wlb and skrull. Two levels, so that both data-parallel ranks and micro-batches balance:
// each document goes to the DP rank of least total workload that can take it, and there to the
// micro-batch of least workload that accepts it.
#ifndef DLSIM_SRC_DATA_BIN_GREEDY_H_
#define DLSIM_SRC_DATA_BIN_GREEDY_H_

#include <algorithm>
#include <functional>
#include <numeric>
#include <optional>
#include <queue>
#include <utility>
#include <vector>

namespace dlsim::data::internal {

// Bins are b = micro_batch * dp + rank. `try_place(bin, item)` places the item and returns the
// workload it added, or returns nullopt (changing nothing) when the bin cannot take it. Items
// are taken in `order`. Returns false as soon as an item fits nowhere. Ties go to the lower
// rank and micro-batch, so the result is deterministic.
template <typename TryPlace>
bool GreedyAssign(int dp, int per_rank, const std::vector<int>& order, TryPlace try_place) {
  using Entry = std::pair<double, int>;  // (rank workload, rank), least first
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ranks;
  for (int d = 0; d < dp; ++d) ranks.push({0.0, d});
  std::vector<double> bin_work(static_cast<size_t>(dp) * static_cast<size_t>(per_rank), 0.0);
  std::vector<int> mbs(static_cast<size_t>(per_rank));
  std::vector<Entry> refused;
  for (int item : order) {
    bool placed = false;
    while (!placed && !ranks.empty()) {
      // Not a structured binding: lambdas capture those only from clang 16 (C++20 P1091).
      const double work = ranks.top().first;
      const int d = ranks.top().second;
      ranks.pop();
      std::iota(mbs.begin(), mbs.end(), 0);
      std::stable_sort(mbs.begin(), mbs.end(),
                       [&](int a, int b) { return bin_work[a * dp + d] < bin_work[b * dp + d]; });
      for (int m : mbs) {
        if (std::optional<double> added = try_place(m * dp + d, item)) {
          bin_work[m * dp + d] += *added;
          ranks.push({work + *added, d});
          placed = true;
          break;
        }
      }
      if (!placed) refused.push_back({work, d});
    }
    for (const Entry& e : refused) ranks.push(e);
    refused.clear();
    if (!placed) return false;
  }
  return true;
}

}  // namespace dlsim::data::internal

#endif  // DLSIM_SRC_DATA_BIN_GREEDY_H_
