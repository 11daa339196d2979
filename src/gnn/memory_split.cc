#include "memory_split.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "dlsim/gnn/topology_cache.h"

namespace dlsim::gnn::internal {
namespace {

// Items taken best-first: prefix sums of their cost (bytes) and of the pages they save.
struct Greedy {
  std::vector<double> bytes{0}, saved{0};
  double total = 0;  // pages read with nothing cached
  double SavedWithin(double budget) const {
    const auto it = std::upper_bound(bytes.begin(), bytes.end(), budget);
    return saved[static_cast<size_t>(it - bytes.begin()) - 1];
  }
};

Greedy TopologyGreedy(const Graph& g, const std::vector<uint32_t>& reads) {
  std::vector<NodeId> order;
  for (NodeId v = 0; v < reads.size(); ++v)
    if (reads[v] > 0) order.push_back(v);
  const auto per_byte = [&](NodeId v) { return reads[v] / ListBytes(g, v); };
  std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return per_byte(a) > per_byte(b); });
  Greedy out;
  for (NodeId v : order) {
    const double pages = static_cast<double>(reads[v]) * static_cast<double>(ListPages(g, v));
    out.total += pages;
    out.bytes.push_back(out.bytes.back() + ListBytes(g, v));
    out.saved.push_back(out.saved.back() + pages);
  }
  return out;
}

Greedy FeatureGreedy(const std::vector<uint32_t>& reads, double row_bytes) {
  std::vector<uint32_t> sorted(reads);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  const double row_pages = std::ceil(row_bytes / 4096);
  Greedy out;
  for (uint32_t r : sorted) {
    if (r == 0) break;
    out.total += r * row_pages;
    out.bytes.push_back(out.bytes.back() + row_bytes);
    out.saved.push_back(out.saved.back() + r * row_pages);
  }
  return out;
}

}  // namespace

SplitPlan ChooseTopologyShare(const Graph& g, const Presample& p, double budget_bytes, double row_bytes,
                              int steps) {
  const Greedy topo = TopologyGreedy(g, p.adjacency), feat = FeatureGreedy(p.features, row_bytes);
  SplitPlan plan;
  double best = 0;
  for (int i = 0; i <= steps; ++i) {
    const double share = static_cast<double>(i) / steps;
    const double pages = topo.total - topo.SavedWithin(share * budget_bytes) + feat.total -
                         feat.SavedWithin((1 - share) * budget_bytes);
    plan.curve.push_back({share, pages});
    if (i == 0 || pages < best) {
      best = pages;
      plan.share = share;
    }
  }
  return plan;
}

}  // namespace dlsim::gnn::internal
