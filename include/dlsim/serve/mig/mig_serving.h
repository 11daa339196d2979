// MIG-serving (Tan et al., arXiv 2109.11067): the fewest GPUs, each with a legal MIG partition and
// one service per instance, that meet every service's throughput demand under its p99 SLO.
//
//   auto problem = serve::MakeMigServingProblem(a100, services, dnn_models, catalogs.compute, {});
//   serve::MigOptimizerRegistry reg("mig-optimizer");
//   serve::RegisterMigOptimizers(reg);
//   auto opt = reg.Create("ga", options);                 // whole-gpu | greedy | ga | mcts
//   Result<serve::MigDeployment> d = (*opt)->Optimize(*problem);
//
// The problem holds the profiled throughput of every service on every MIG profile (the best
// throughput meeting its SLO, serve/dnn_service.h) and on the whole GPU with MIG disabled, and
// the partitions to choose from (the maximal legal ones by default, hw/mig.h). A GPU
// configuration is a partition plus a service (or nothing) per instance; its contribution is
// the sum of its instances' throughputs per service. The optimisers (docs/serving.md, "MIG
// serving"):
//   whole-gpu  the baseline: ceil(demand / whole-GPU throughput) un-partitioned GPUs per service;
//   greedy     the paper's fast path: add the configuration of highest utility
//              sum_m min(c_m, r_m)/T_m - waste_penalty * sum_m max(0, c_m - r_m)/T_m (r = unmet
//              demand, T = demand) until every demand is met, ending on the first configuration
//              that meets all the unmet demand on one GPU as soon as one exists (so never more
//              GPUs than whole-gpu when whole GPUs are allowed);
//   ga         the genetic algorithm over deployments (multisets of configurations) seeded with
//              the greedy's answer and the greedy without its finishing step: crossover keeps random subsets
//              of two parents, mutation drops GPUs, both refill greedily and drop redundant GPUs; the best
//              never loses to the greedy;
//   mcts       Monte Carlo tree search over partial deployments: actions add one of the best
//              configurations (one per partition) for the unmet demand, rollouts complete
//              greedily, reward -GPUs; the root's greedy rollout is the incumbent.
// Optimisers are deterministic for a seed. Infeasible (a service no instance can serve under
// its SLO) is Error::Infeasible with the service and the reason.
#ifndef DLSIM_SERVE_MIG_MIG_SERVING_H_
#define DLSIM_SERVE_MIG_MIG_SERVING_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/hw/mig.h"
#include "dlsim/serve/mig/dnn_model.h"
#include "dlsim/serve/mig/dnn_service.h"

namespace dlsim::serve {

struct MigService {
  std::string name;   // unique, e.g. "resnet50"
  std::string model;  // a DnnModelRegistry name
  double demand_rps = 0;
  Duration slo_p99 = Millis(100);
};

struct MigServingProblem {
  hw::GpuSpec gpu;
  std::vector<MigService> services;
  std::vector<std::vector<double>> throughput;  // [service][profile of gpu.mig], req/s; 0 = cannot
  std::vector<std::vector<int>> batch;          // [service][profile]: the batch behind it
  std::vector<double> whole_gpu_throughput;     // [service], MIG disabled
  std::vector<hw::MigPartition> partitions;     // the partitions configurations use
  bool allow_whole_gpu = true;                  // MigProblemOptions::allow_whole_gpu
};

struct MigProblemOptions {
  // Profiles the partitions may use; empty = every profile of the GPU except the ones with more
  // memory slices than compute slices of the same compute size (1g.20gb): the paper's 1g..7g.
  std::vector<std::string> profiles;
  bool maximal_only = true;  // configurations from maximal partitions only
  // A GPU may also run with MIG disabled (one service on all 108 SMs): the optimisers may pick
  // it like a partition, so they never need more GPUs than not partitioning for lack of it.
  bool allow_whole_gpu = true;
  DnnServeOptions serve;
};

// Profiles every service on every profile and the whole GPU (roofline compute model, or
// `table` rows). Errors: unknown model or profile names, a duplicate service name, a demand
// outside (0, 1e9] req/s or an SLO outside (0, 1e6] s (kInvalidArgument, naming the service).
Result<MigServingProblem> MakeMigServingProblem(const hw::GpuSpec& gpu, std::vector<MigService> services,
                                                const DnnModelRegistry& models,
                                                const cost::ComputeCalibration& calibration,
                                                const MigProblemOptions& options = {},
                                                const DnnProfileTable* table = nullptr);

// One GPU: `partition` indexes problem.partitions, -1 = the whole GPU with MIG disabled (then
// `service` has one entry). service[i] serves instance i of the partition (its start order);
// -1 = idle.
struct GpuConfig {
  int partition = -1;
  std::vector<int> service;
  bool operator==(const GpuConfig&) const = default;
};

struct MigDeployment {
  std::vector<GpuConfig> gpus;
  std::vector<double> served_rps;  // per service
  int64_t evaluations = 0;         // configurations scored: the optimiser's work
};

// Throughput one configuration adds per service.
std::vector<double> Contribution(const MigServingProblem& p, const GpuConfig& c);
// Served throughput per service of a set of GPUs, and whether every demand is met (1e-9 relative).
std::vector<double> Served(const MigServingProblem& p, const std::vector<GpuConfig>& gpus);
bool MeetsDemand(const MigServingProblem& p, const std::vector<double>& served);
// sum_m T_m / best_m, best_m = max(7 x max_k tput[m][k] / compute_slices(k) over the profiles
// the partitions use, whole-GPU throughput when allowed): GPUs if every GPU ran each service at
// its best throughput per GPU (not rounded); infinity when a service has no throughput.
double MigLowerBoundGpus(const MigServingProblem& p);
// "3g.40gb:resnet50 2g.20gb:bert-base ..." or "whole:resnet50".
std::string ConfigString(const MigServingProblem& p, const GpuConfig& c);

struct MigOptimizerOptions {
  uint64_t seed = 0;
  double waste_penalty = 0.1;  // greedy utility: weight of throughput beyond the unmet demand
  int ga_population = 16;
  int ga_generations = 40;
  int mcts_iterations = 300;
  int mcts_branching = 4;  // best configurations (one per partition) tried per tree node
};

class MigServingOptimizer {
 public:
  virtual ~MigServingOptimizer() = default;
  // A deployment meeting every demand, or Error::Infeasible naming a service that no instance
  // (or no whole GPU, for the baseline) can serve under its SLO.
  virtual Result<MigDeployment> Optimize(const MigServingProblem& p) const = 0;
};

using MigOptimizerRegistry = Registry<MigServingOptimizer, const MigOptimizerOptions&>;
void RegisterMigOptimizers(MigOptimizerRegistry& reg);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_MIG_MIG_SERVING_H_
