#include "dlsim/plan/sharding/sharding_ilp.h"

#include <iterator>
#include <vector>

#include "dlsim/core/linear_program.h"

namespace dlsim::plan {
namespace {

// A node of the program: the graph input (its options are layouts) or an operator (its strategies).
struct Node {
  std::vector<Layout> out;             // per option: the layout of the node's output
  std::vector<int> var;                // per option: its s variable
  std::vector<OpStrategy> strategies;  // operators only
};

// Adds one-hot s variables for `n`'s options with the given costs (ns), and their sum = 1 row.
void AddOneHot(LinearProgram& lp, Node& n, const std::vector<double>& cost) {
  std::vector<std::pair<int, double>> row;
  for (double c : cost) {
    n.var.push_back(lp.AddVariable(0, 1, c, /*integer=*/true));
    row.push_back({n.var.back(), 1});
  }
  lp.AddRow(std::move(row), 1, 1);
}

Node InputNode(LinearProgram& lp, std::optional<Layout> input) {
  Node n;
  n.out = input ? std::vector<Layout>{*input}
                : std::vector<Layout>(std::begin(kGraphInputLayouts), std::end(kGraphInputLayouts));
  AddOneHot(lp, n, std::vector<double>(n.out.size(), 0.0));
  return n;
}

Node OpNode(LinearProgram& lp, const ShardOp& op, const ShardingCostModel& cost) {
  Node n;
  n.strategies = Strategies(op);
  std::vector<double> own;
  for (const OpStrategy& s : n.strategies) {
    own.push_back(static_cast<double>(cost.Op(op, s).ToNanos()));
    n.out.push_back(s.out);
  }
  AddOneHot(lp, n, own);
  return n;
}

// The e variables of the edge from `u` into input `j` of `v` (width `w` features), with Alpa's
// rows: sum e = 1, row sums <= s_u, column sums <= s_v. Impossible pairs have no variable.
void AddEdge(LinearProgram& lp, const Node& u, const Node& v, size_t j, double w,
             const ShardingCostModel& cost) {
  std::vector<std::pair<int, double>> all;
  std::vector<std::vector<std::pair<int, double>>> rows(u.var.size()), cols(v.var.size());
  for (size_t a = 0; a < u.var.size(); ++a) {
    for (size_t s = 0; s < v.var.size(); ++s) {
      const std::optional<Duration> d = cost.Edge(u.out[a], v.strategies[s], j, w);
      if (!d) continue;
      const int e = lp.AddVariable(0, 1, static_cast<double>(d->ToNanos()), /*integer=*/true);
      all.push_back({e, 1});
      rows[a].push_back({e, 1});
      cols[s].push_back({e, 1});
    }
  }
  lp.AddRow(std::move(all), 1, 1);
  for (size_t a = 0; a < u.var.size(); ++a) {
    rows[a].push_back({u.var[a], -1});
    lp.AddRow(std::move(rows[a]), -kLpInfinity, 0);
  }
  for (size_t s = 0; s < v.var.size(); ++s) {
    cols[s].push_back({v.var[s], -1});
    lp.AddRow(std::move(cols[s]), -kLpInfinity, 0);
  }
}

// The option whose s variable is 1.
int Chosen(const Node& n, const LpSolution& x) {
  for (size_t k = 0; k < n.var.size(); ++k) {
    if (x.x[n.var[k]] > 0.5) return static_cast<int>(k);
  }
  return 0;  // unreachable: the one-hot row holds
}

}  // namespace

Result<IlpSearch> SearchShardingIlp(const ShardingGraph& g, const ShardingCostModel& cost,
                                    std::optional<Layout> input) {
  LinearProgram lp;
  std::vector<Node> nodes;  // [0] the graph input, [i + 1] operator i
  nodes.push_back(InputNode(lp, input));
  for (size_t i = 0; i < g.ops.size(); ++i) {
    nodes.push_back(OpNode(lp, g.ops[i], cost));
    for (size_t j = 0; j < g.ops[i].inputs.size(); ++j) {
      const int t = g.ops[i].inputs[j];
      const double w = t < 0 ? g.input_width : g.ops[t].width;
      AddEdge(lp, nodes[t + 1], nodes.back(), j, w, cost);
    }
  }
  Result<LpSolution> x = lp.Minimize();
  if (!x.ok()) return Error{x.error().code, "sharding ILP: " + x.error().message};
  IlpSearch out;
  out.variables = lp.variables();
  out.rows = lp.rows();
  out.plan.input = nodes[0].out[Chosen(nodes[0], *x)];
  for (size_t i = 0; i < g.ops.size(); ++i) out.plan.strategy.push_back(Chosen(nodes[i + 1], *x));
  out.plan.output = nodes.back().out[out.plan.strategy.back()];
  const std::optional<Duration> c = PlanCost(g, cost, out.plan.strategy, out.plan.input);
  if (!c) return Error::Internal("sharding ILP: the chosen plan has an impossible resharding");
  out.plan.cost = *c;
  return out;
}

}  // namespace dlsim::plan
