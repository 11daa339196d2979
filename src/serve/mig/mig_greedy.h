// Private to src/serve: the greedy steps the MIG-serving optimisers share.
#ifndef DLSIM_SRC_SERVE_MIG_MIG_GREEDY_H_
#define DLSIM_SRC_SERVE_MIG_MIG_GREEDY_H_

#include <cstdint>
#include <vector>

#include "dlsim/serve/mig/mig_serving.h"

namespace dlsim::serve::internal {

struct ScoredConfig {
  double utility = 0;
  GpuConfig config;
};

// Unmet demand per service: max(0, T_m - served_m).
std::vector<double> Unmet(const MigServingProblem& p, const std::vector<double>& served);

// The best configuration of each partition (and of the whole GPU when allowed) for the unmet
// demand, by utility, highest first (ties: partition order). `evaluations` counts assignments.
std::vector<ScoredConfig> BestConfigs(const MigServingProblem& p, const std::vector<double>& unmet,
                                      double waste_penalty, int64_t& evaluations);

// Adds the best configuration until every demand is met. With `finish`, a configuration that
// meets all the unmet demand on one GPU is taken as soon as one exists (the greedy's answer and
// the searches' starting point); without, the searches' refills keep the utility order, which
// explores more. Error::Infeasible when no configuration serves a service with unmet demand.
Status GreedyFill(const MigServingProblem& p, double waste_penalty, std::vector<GpuConfig>& gpus,
                  int64_t& evaluations, bool finish);

// Removes GPUs whose removal keeps every demand met (the smallest contributions first).
void DropRedundant(const MigServingProblem& p, std::vector<GpuConfig>& gpus);

// Total throughput beyond demand, relative to demand: the tie-break between equal GPU counts.
double Waste(const MigServingProblem& p, const std::vector<GpuConfig>& gpus);

// Error::Infeasible naming the first service no configuration can serve; Ok otherwise.
Status CheckServable(const MigServingProblem& p);

MigDeployment MakeDeployment(const MigServingProblem& p, std::vector<GpuConfig> gpus, int64_t evaluations);

}  // namespace dlsim::serve::internal

#endif  // DLSIM_SRC_SERVE_MIG_MIG_GREEDY_H_
