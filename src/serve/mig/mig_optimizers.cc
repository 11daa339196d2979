// The MIG-serving optimisers' registry, the whole-GPU baseline and the greedy.
#include <cmath>
#include <memory>
#include <string>

#include "dlsim/core/strings.h"
#include "dlsim/serve/mig/mig_serving.h"
#include "mig_greedy.h"

namespace dlsim::serve {

std::unique_ptr<MigServingOptimizer> MakeGeneticMigOptimizer(const MigOptimizerOptions& o);  // mig_search.cc
std::unique_ptr<MigServingOptimizer> MakeMctsMigOptimizer(const MigOptimizerOptions& o);     // mig_search.cc

namespace {

// Each service on its own un-partitioned GPUs: ceil(demand / whole-GPU throughput).
class WholeGpuOptimizer final : public MigServingOptimizer {
 public:
  Result<MigDeployment> Optimize(const MigServingProblem& p) const override {
    std::vector<GpuConfig> gpus;
    for (size_t m = 0; m < p.services.size(); ++m) {
      const double w = p.whole_gpu_throughput[m];
      if (w <= 0)
        return Error::Infeasible("service '" + p.services[m].name + "' (" + p.services[m].model +
                                 "): a whole " + p.gpu.name + " does not meet its p99 SLO of " +
                                 FormatNumber(p.services[m].slo_p99.ToMillis(), 4) + " ms at any batch");
      const auto n = static_cast<int64_t>(std::ceil(p.services[m].demand_rps / w * (1.0 - 1e-12)));
      for (int64_t i = 0; i < n; ++i) gpus.push_back({-1, {static_cast<int>(m)}});
    }
    return internal::MakeDeployment(p, std::move(gpus), static_cast<int64_t>(p.services.size()));
  }
};

class GreedyOptimizer final : public MigServingOptimizer {
 public:
  explicit GreedyOptimizer(const MigOptimizerOptions& o) : o_(o) {}
  Result<MigDeployment> Optimize(const MigServingProblem& p) const override {
    DLSIM_RETURN_IF_ERROR(internal::CheckServable(p));
    std::vector<GpuConfig> gpus;
    int64_t evaluations = 0;
    DLSIM_RETURN_IF_ERROR(internal::GreedyFill(p, o_.waste_penalty, gpus, evaluations, true));
    internal::DropRedundant(p, gpus);
    return internal::MakeDeployment(p, std::move(gpus), evaluations);
  }

 private:
  MigOptimizerOptions o_;
};

}  // namespace

void RegisterMigOptimizers(MigOptimizerRegistry& reg) {
  reg.RegisterBuiltin("whole-gpu", "baseline: every service on its own whole GPUs, MIG disabled",
                      [](const MigOptimizerOptions&) { return std::make_unique<WholeGpuOptimizer>(); });
  reg.RegisterBuiltin("greedy",
                      "MIG-serving fast path: add the configuration of highest utility (unmet demand filled, "
                      "waste penalised) until every demand is met",
                      [](const MigOptimizerOptions& o) { return std::make_unique<GreedyOptimizer>(o); });
  reg.RegisterBuiltin("ga",
                      "MIG-serving slow path: genetic algorithm over deployments seeded with the greedy "
                      "(crossover of GPU subsets, mutation drops GPUs, greedy refill)",
                      [](const MigOptimizerOptions& o) { return MakeGeneticMigOptimizer(o); });
  reg.RegisterBuiltin("mcts",
                      "MIG-serving slow path: Monte Carlo tree search over partial deployments with greedy "
                      "rollouts",
                      [](const MigOptimizerOptions& o) { return MakeMctsMigOptimizer(o); });
}

}  // namespace dlsim::serve
