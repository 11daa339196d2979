#include "dlsim/gnn/topology_cache.h"

#include <algorithm>
#include <numeric>

namespace dlsim::gnn {
namespace {

class StaticTopologyCache final : public TopologyCache {
 public:
  StaticTopologyCache(const TopologyCacheContext& c, const std::vector<double>& score, std::string_view name)
      : held_(static_cast<size_t>(c.graph.num_nodes()), false), name_(name) {
    std::vector<NodeId> order;
    order.reserve(held_.size());
    for (NodeId v = 0; v < held_.size(); ++v) {
      const bool candidate = c.part.empty() || c.part[v] != c.machine;
      if (candidate && score[v] >= c.tau) order.push_back(v);
    }
    std::stable_sort(order.begin(), order.end(), [&](NodeId a, NodeId b) { return score[a] > score[b]; });
    for (NodeId v : order) {
      const double b = ListBytes(c.graph, v);
      if (c.budget_bytes >= 0 && bytes_ + b > c.budget_bytes) continue;
      held_[v] = true;
      bytes_ += b;
      ++lists_;
    }
  }
  bool Holds(NodeId v) const override { return held_[v]; }
  double bytes() const override { return bytes_; }
  int64_t lists() const override { return lists_; }
  std::string_view name() const override { return name_; }

 private:
  std::vector<bool> held_;
  double bytes_ = 0;
  int64_t lists_ = 0;
  std::string_view name_;
};

class NoTopologyCache final : public TopologyCache {
 public:
  bool Holds(NodeId) const override { return false; }
  double bytes() const override { return 0; }
  int64_t lists() const override { return 0; }
  std::string_view name() const override { return "none"; }
};

std::vector<double> InDegreeScore(const Graph& g) {
  std::vector<double> s(static_cast<size_t>(g.num_nodes()));
  for (NodeId v = 0; v < s.size(); ++v) s[v] = static_cast<double>(g.InDegree(v));
  return s;
}

std::vector<double> ReadsPerByte(const Graph& g, std::span<const uint32_t> reads) {
  std::vector<double> s(static_cast<size_t>(g.num_nodes()), 0);
  for (NodeId v = 0; v < s.size() && v < reads.size(); ++v) s[v] = reads[v] / ListBytes(g, v);
  return s;
}

// Paths of length 1..hops ending (in) or starting (out) at every node.
std::vector<double> PathDegrees(const Graph& g, int hops, bool in) {
  const auto n = static_cast<size_t>(g.num_nodes());
  std::vector<double> one(n), total(n);
  for (NodeId v = 0; v < n; ++v) one[v] = static_cast<double>(in ? g.InDegree(v) : g.Degree(v));
  total = one;
  if (hops >= 2) {
    for (NodeId v = 0; v < n; ++v) {
      for (NodeId u : in ? g.InNeighbors(v) : g.Neighbors(v)) total[v] += one[u];
    }
  }
  return total;
}

}  // namespace

double ListBytes(const Graph& g, NodeId v) { return 4.0 * static_cast<double>(g.Degree(v)) + 8.0; }

std::vector<double> Importance(const Graph& g, int hops) {
  const std::vector<double> in = PathDegrees(g, hops, true), out = PathDegrees(g, hops, false);
  std::vector<double> imp(in.size());
  for (size_t v = 0; v < in.size(); ++v) imp[v] = out[v] > 0 ? in[v] / out[v] : in[v];
  return imp;
}

bool TopologyNeedsReads(std::string_view policy) { return policy == "frequency"; }

void RegisterTopologyCaches(TopologyCacheRegistry& reg) {
  reg.RegisterBuiltin("none", "No adjacency list is cached",
                      [](const TopologyCacheContext&) { return std::make_unique<NoTopologyCache>(); });
  reg.RegisterBuiltin("degree", "Static: the lists of the highest in-degree nodes", [](const auto& c) {
    return std::make_unique<StaticTopologyCache>(c, InDegreeScore(c.graph), "degree");
  });
  reg.RegisterBuiltin(
      "frequency", "CaliEX: static, the lists most read in a pre-sampled epoch per byte", [](const auto& c) {
        return std::make_unique<StaticTopologyCache>(c, ReadsPerByte(c.graph, c.reads), "frequency");
      });
  reg.RegisterBuiltin(
      "importance", "AliGraph: lists of nodes with Imp(k) = D_in(k) / D_out(k) >= tau", [](const auto& c) {
        return std::make_unique<StaticTopologyCache>(c, Importance(c.graph, c.hops), "importance");
      });
}

}  // namespace dlsim::gnn
