// MIG-serving's slow path: a genetic algorithm and Monte Carlo tree search that improve the
// greedy deployment (Tan et al., arXiv 2109.11067, section on the optimiser).
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/rng.h"
#include "dlsim/serve/mig/mig_serving.h"
#include "mig_greedy.h"

namespace dlsim::serve {
namespace {

using Gpus = std::vector<GpuConfig>;

// Fewer GPUs, then less throughput beyond demand.
bool Better(const MigServingProblem& p, const Gpus& a, const Gpus& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return internal::Waste(p, a) < internal::Waste(p, b) - 1e-12;
}

Result<Gpus> GreedyStart(const MigServingProblem& p, double waste, int64_t& evaluations, bool finish = true) {
  DLSIM_RETURN_IF_ERROR(internal::CheckServable(p));
  Gpus gpus;
  DLSIM_RETURN_IF_ERROR(internal::GreedyFill(p, waste, gpus, evaluations, finish));
  internal::DropRedundant(p, gpus);
  return gpus;
}

class GeneticOptimizer final : public MigServingOptimizer {
 public:
  explicit GeneticOptimizer(const MigOptimizerOptions& o) : o_(o) {}

  Result<MigDeployment> Optimize(const MigServingProblem& p) const override {
    int64_t evals = 0;
    // Both greedy answers seed the population: the one that finishes on one GPU as soon as it
    // can, and the one that keeps the utility order to the end (different building blocks).
    DLSIM_ASSIGN_OR_RETURN(Gpus best, GreedyStart(p, o_.waste_penalty, evals));
    DLSIM_ASSIGN_OR_RETURN(Gpus plain, GreedyStart(p, o_.waste_penalty, evals, false));
    Rng rng = Rng(o_.seed).Stream("mig-serving/ga");
    std::vector<Gpus> pop = {best, plain};
    if (Better(p, plain, best)) best = plain;
    while (static_cast<int>(pop.size()) < o_.ga_population) {
      DLSIM_ASSIGN_OR_RETURN(Gpus child, Mutate(p, best, rng, evals));
      pop.push_back(std::move(child));
    }
    for (int gen = 0; gen < o_.ga_generations; ++gen) {
      std::vector<Gpus> next = {best};  // elitism
      while (static_cast<int>(next.size()) < o_.ga_population) {
        const Gpus& a = Tournament(p, pop, rng);
        Gpus child = rng.NextDouble() < 0.5 ? Crossover(a, Tournament(p, pop, rng), rng) : a;
        DLSIM_ASSIGN_OR_RETURN(child, Mutate(p, std::move(child), rng, evals));
        if (Better(p, child, best)) best = child;
        next.push_back(std::move(child));
      }
      pop = std::move(next);
    }
    return internal::MakeDeployment(p, std::move(best), evals);
  }

 private:
  const Gpus& Tournament(const MigServingProblem& p, const std::vector<Gpus>& pop, Rng& rng) const {
    const Gpus& a = pop[rng.NextBelow(pop.size())];
    const Gpus& b = pop[rng.NextBelow(pop.size())];
    return Better(p, b, a) ? b : a;
  }
  // Each GPU of either parent is kept with probability 1/2; the refill repairs the rest.
  static Gpus Crossover(const Gpus& a, const Gpus& b, Rng& rng) {
    Gpus child;
    for (const Gpus* parent : {&a, &b})
      for (const GpuConfig& g : *parent)
        if (rng.NextDouble() < 0.5) child.push_back(g);
    return child;
  }
  // Drops 1..max(1, n/3) random GPUs, refills greedily, drops the redundant ones.
  Result<Gpus> Mutate(const MigServingProblem& p, Gpus g, Rng& rng, int64_t& evals) const {
    const size_t drops = g.empty() ? 0 : 1 + rng.NextBelow(std::max<size_t>(1, g.size() / 3));
    for (size_t i = 0; i < drops && !g.empty(); ++i)
      g.erase(g.begin() + static_cast<long>(rng.NextBelow(g.size())));
    internal::DropRedundant(p, g);
    DLSIM_RETURN_IF_ERROR(internal::GreedyFill(p, o_.waste_penalty, g, evals, false));
    internal::DropRedundant(p, g);
    return g;
  }
  MigOptimizerOptions o_;
};

// One tree node: a partial deployment (the configurations on the path from the root).
struct Node {
  int parent = -1;
  GpuConfig action;  // the configuration this node adds to its parent
  int depth = 0;     // GPUs on the path
  std::vector<double> served;
  std::vector<GpuConfig> untried;
  std::vector<int> children;
  int visits = 0;
  double reward = 0;  // sum of rewards seen below
  bool terminal = false;
};

class MctsOptimizer final : public MigServingOptimizer {
 public:
  explicit MctsOptimizer(const MigOptimizerOptions& o) : o_(o) {}

  Result<MigDeployment> Optimize(const MigServingProblem& p) const override {
    int64_t evals = 0;
    DLSIM_ASSIGN_OR_RETURN(Gpus best, GreedyStart(p, o_.waste_penalty, evals));
    const double scale = static_cast<double>(std::max<size_t>(1, best.size()));
    std::vector<Node> tree(1);
    tree[0].served.assign(p.services.size(), 0.0);
    Expandable(p, tree[0], evals);
    for (int it = 0; it < o_.mcts_iterations; ++it) {
      int n = Select(tree);
      if (!tree[n].terminal && !tree[n].untried.empty()) n = Expand(p, tree, n, evals);
      DLSIM_ASSIGN_OR_RETURN(Gpus full, Rollout(p, tree, n, evals));
      if (Better(p, full, best)) best = full;
      for (double r = -static_cast<double>(full.size()) / scale; n >= 0; n = tree[n].parent) {
        ++tree[n].visits;
        tree[n].reward += r;
      }
    }
    return internal::MakeDeployment(p, std::move(best), evals);
  }

 private:
  void Expandable(const MigServingProblem& p, Node& node, int64_t& evals) const {
    node.terminal = MeetsDemand(p, node.served);
    if (node.terminal) return;
    for (const auto& c : internal::BestConfigs(p, internal::Unmet(p, node.served), o_.waste_penalty, evals)) {
      if (c.utility <= 0 || static_cast<int>(node.untried.size()) >= o_.mcts_branching) break;
      node.untried.push_back(c.config);
    }
  }
  // UCT descent to a node with untried actions or a leaf.
  static int Select(const std::vector<Node>& tree) {
    int n = 0;
    while (!tree[n].terminal && tree[n].untried.empty() && !tree[n].children.empty()) {
      int pick = tree[n].children[0];
      double best = -1e300;
      for (int c : tree[n].children) {
        const double uct = tree[c].reward / tree[c].visits +
                           0.5 * std::sqrt(std::log(static_cast<double>(tree[n].visits)) / tree[c].visits);
        if (uct > best) best = uct, pick = c;
      }
      n = pick;
    }
    return n;
  }
  int Expand(const MigServingProblem& p, std::vector<Node>& tree, int n, int64_t& evals) const {
    Node child;
    child.parent = n;
    child.action = tree[n].untried.front();
    tree[n].untried.erase(tree[n].untried.begin());
    child.depth = tree[n].depth + 1;
    child.served = tree[n].served;
    const std::vector<double> c = Contribution(p, child.action);
    for (size_t m = 0; m < c.size(); ++m) child.served[m] += c[m];
    Expandable(p, child, evals);
    tree.push_back(std::move(child));
    const int id = static_cast<int>(tree.size()) - 1;
    tree[n].children.push_back(id);
    return id;
  }
  // The path's configurations completed greedily, redundant GPUs dropped.
  Result<Gpus> Rollout(const MigServingProblem& p, const std::vector<Node>& tree, int n,
                       int64_t& evals) const {
    Gpus g;
    for (int at = n; at > 0; at = tree[at].parent) g.push_back(tree[at].action);
    DLSIM_RETURN_IF_ERROR(internal::GreedyFill(p, o_.waste_penalty, g, evals, true));
    internal::DropRedundant(p, g);
    return g;
  }
  MigOptimizerOptions o_;
};

}  // namespace

std::unique_ptr<MigServingOptimizer> MakeGeneticMigOptimizer(const MigOptimizerOptions& o) {
  return std::make_unique<GeneticOptimizer>(o);
}
std::unique_ptr<MigServingOptimizer> MakeMctsMigOptimizer(const MigOptimizerOptions& o) {
  return std::make_unique<MctsOptimizer>(o);
}

}  // namespace dlsim::serve
