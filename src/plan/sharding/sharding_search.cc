#include "dlsim/plan/sharding/sharding_search.h"

#include <algorithm>
#include <limits>

namespace dlsim::plan {
namespace {

// Prices of one operator: per strategy its own cost, and per (input, producer layout, strategy) the
// two reshardings of that edge (empty when impossible).
struct OpPrices {
  std::vector<OpStrategy> strategies;
  std::vector<Duration> own;
  std::vector<std::optional<Duration>> edge;  // [(input * kLayouts + layout) * strategies + s]
  std::optional<Duration> Edge(int input, Layout a, int s) const {
    return edge[(input * kLayouts + static_cast<int>(a)) * strategies.size() + s];
  }
};

double WidthOf(const ShardingGraph& g, int tensor) {
  return tensor < 0 ? g.input_width : g.ops[tensor].width;
}

std::vector<OpPrices> Price(const ShardingGraph& g, const ShardingCostModel& cost) {
  std::vector<OpPrices> out(g.ops.size());
  for (size_t i = 0; i < g.ops.size(); ++i) {
    OpPrices& p = out[i];
    p.strategies = Strategies(g.ops[i]);
    for (const OpStrategy& s : p.strategies) p.own.push_back(cost.Op(g.ops[i], s));
    for (size_t j = 0; j < g.ops[i].inputs.size(); ++j) {
      const double w = WidthOf(g, g.ops[i].inputs[j]);
      for (int a = 0; a < kLayouts; ++a) {
        for (const OpStrategy& s : p.strategies) p.edge.push_back(cost.Edge(static_cast<Layout>(a), s, j, w));
      }
    }
  }
  return out;
}

struct Entry {
  int64_t cost = std::numeric_limits<int64_t>::max();  // ns; max = unreachable
  uint32_t parent = 0;
  int8_t strategy = -1;
};

uint32_t Pow4(size_t n) { return uint32_t{1} << (2 * n); }

// The live tensors before each operator (tensor ids: -1 is the graph input), and after the last.
std::vector<std::vector<int>> LiveSets(const ShardingGraph& g) {
  const int n = static_cast<int>(g.ops.size());
  std::vector<int> last_use(n + 1, -1);  // index tensor + 1
  for (int i = 0; i < n; ++i) {
    for (int t : g.ops[i].inputs) last_use[t + 1] = i;
  }
  std::vector<std::vector<int>> live(n + 1);
  live[0] = {-1};
  for (int i = 0; i < n; ++i) {
    for (int t : live[i]) {
      if (last_use[t + 1] > i) live[i + 1].push_back(t);
    }
    if (last_use[i + 1] > i || i == n - 1) live[i + 1].push_back(i);
  }
  return live;
}

}  // namespace

namespace {

constexpr int64_t kUnreached = std::numeric_limits<int64_t>::max();

// One DP step: every reachable state before op i under every strategy of op i, into `next`.
// Returns the (state, strategy) pairs expanded.
int64_t ExpandOp(const ShardingGraph& g, int i, const OpPrices& p, const std::vector<int>& before,
                 const std::vector<int>& after, const std::vector<Entry>& cur, std::vector<Entry>& next) {
  int64_t expanded = 0;
  for (uint32_t key = 0; key < cur.size(); ++key) {
    if (cur[key].cost == kUnreached) continue;
    auto layout_of = [&](int tensor) {
      const size_t pos = std::find(before.begin(), before.end(), tensor) - before.begin();
      return static_cast<Layout>((key >> (2 * pos)) & 3);
    };
    for (size_t s = 0; s < p.strategies.size(); ++s) {
      ++expanded;
      int64_t c = cur[key].cost + p.own[s].ToNanos();
      bool ok = true;
      for (size_t j = 0; j < g.ops[i].inputs.size() && ok; ++j) {
        const std::optional<Duration> e =
            p.Edge(static_cast<int>(j), layout_of(g.ops[i].inputs[j]), static_cast<int>(s));
        ok = e.has_value();
        if (ok) c += e->ToNanos();
      }
      if (!ok) continue;
      uint32_t to = 0;
      for (size_t q = 0; q < after.size(); ++q) {
        const Layout l = after[q] == i ? p.strategies[s].out : layout_of(after[q]);
        to |= static_cast<uint32_t>(l) << (2 * q);
      }
      Entry& e = next[to];
      if (c < e.cost) e = {c, key, static_cast<int8_t>(s)};
    }
  }
  return expanded;
}

// The plan ending in output layout o, walked back through the parents.
ShardingPlan Reconstruct(const std::vector<std::vector<Entry>>& dp, int o, int64_t expanded) {
  const int n = static_cast<int>(dp.size()) - 1;
  ShardingPlan plan;
  plan.cost = Duration::Nanos(dp[n][o].cost);
  plan.output = static_cast<Layout>(o);
  plan.states = expanded;
  plan.strategy.assign(n, 0);
  uint32_t key = o;
  for (int i = n; i > 0; --i) {
    plan.strategy[i - 1] = dp[i][key].strategy;
    key = dp[i][key].parent;
  }
  plan.input = static_cast<Layout>(key);
  return plan;
}

}  // namespace

ShardingPlans SearchSharding(const ShardingGraph& g, const ShardingCostModel& cost,
                             std::optional<Layout> input) {
  const std::vector<OpPrices> prices = Price(g, cost);
  const std::vector<std::vector<int>> live = LiveSets(g);
  const int n = static_cast<int>(g.ops.size());
  std::vector<std::vector<Entry>> dp(n + 1);
  dp[0].assign(Pow4(1), Entry{});
  if (input) {
    dp[0][static_cast<int>(*input)].cost = 0;
  } else {
    for (Layout a : kGraphInputLayouts) dp[0][static_cast<int>(a)].cost = 0;
  }
  int64_t expanded = 0;
  for (int i = 0; i < n; ++i) {
    dp[i + 1].assign(Pow4(live[i + 1].size()), Entry{});
    expanded += ExpandOp(g, i, prices[i], live[i], live[i + 1], dp[i], dp[i + 1]);
  }
  ShardingPlans out;
  for (int o = 0; o < kLayouts; ++o) {
    if (dp[n][o].cost != kUnreached) out[o] = Reconstruct(dp, o, expanded);
  }
  return out;
}

const ShardingPlan* Best(const ShardingPlans& plans) {
  const ShardingPlan* best = nullptr;
  for (const auto& p : plans) {
    if (p && (best == nullptr || p->cost < best->cost)) best = &*p;
  }
  return best;
}

std::optional<Duration> PlanCost(const ShardingGraph& g, const ShardingCostModel& cost,
                                 const std::vector<int>& strategy, Layout input) {
  std::vector<Layout> layout(g.ops.size());
  Duration total;
  for (size_t i = 0; i < g.ops.size(); ++i) {
    const std::vector<OpStrategy> st = Strategies(g.ops[i]);
    const OpStrategy& s = st[strategy[i]];
    total += cost.Op(g.ops[i], s);
    for (size_t j = 0; j < g.ops[i].inputs.size(); ++j) {
      const int t = g.ops[i].inputs[j];
      const std::optional<Duration> e = cost.Edge(t < 0 ? input : layout[t], s, j, WidthOf(g, t));
      if (!e) return std::nullopt;
      total += *e;
    }
    layout[i] = s.out;
  }
  return total;
}

}  // namespace dlsim::plan
