// GoldMiner (Zhao et al., "GoldMiner: Elastic Scaling of Training Data Pre-Processing Pipelines for
// Deep Learning", SIGMOD'23), registered as "goldminer".
//
// GoldMiner moves a job's stateless input preprocessing into data workers that run on idle CPUs
// anywhere in the cluster and scales them across jobs. Here (cluster/input_pipeline.h for the
// speed model):
//   - GPU jobs are scheduled first come, first served (non-preemptive, with `backfill`);
//   - after every pass the idle cores of the cluster (every core not used by a running job's own
//     input pipeline: nodes whose GPUs are idle, CPU-only nodes, the unused part of a job's local
//     share) are handed out in data workers of `goldminer_worker_cores` cores, each to the job
//     whose GPU-busy fraction it raises most: gain = GPUs x delta rate / GPU rate. Every job's
//     rate is concave in its remote cores (linear to its need, then flat), so handing out one
//     worker at a time by marginal gain maximises the sum of gains; GreedyDataWorkers computes the
//     same result in O(J log J) from each job's blocks of equal-gain workers.
//   - data workers are stateless: they are re-planned at every pass at no cost (GoldMiner
//     preempts them when GPU jobs need the CPUs back).
// With goldminer_equal_split the idle cores are split equally instead (water-filling up to each
// job's need): the ablation without marginal-gain scaling.
// Not modelled: GoldMiner's relaxed CPU requests at GPU placement (our jobs' CPU requests are
// not placement constraints unless the trace gives cpu_milli), serialisation CPU of remote
// workers, and the workers' placement per node (the pool is cluster-wide; the network cost is the
// receiving job's NIC share).
#ifndef DLSIM_CLUSTER_POLICIES_GOLDMINER_H_
#define DLSIM_CLUSTER_POLICIES_GOLDMINER_H_

#include <memory>
#include <vector>

#include "dlsim/cluster/policy.h"

namespace dlsim::cluster {

// Data-worker cores per demand, in whole workers of `worker_cores` (> 0), at most `idle_cores`
// in all, chosen worker by worker by marginal gain (ties: the earlier demand). Exact.
std::vector<double> GreedyDataWorkers(const std::vector<DataWorkerDemand>& demands, double idle_cores,
                                      double worker_cores);

// Idle cores split equally, each demand capped at the cores that saturate it (water-filling).
std::vector<double> EqualDataWorkers(const std::vector<DataWorkerDemand>& demands, double idle_cores);

// The sum over demands of GPUs x DemandRate / gpu_rate: GPUs kept busy (what the greedy maximises).
double BusyGpus(const std::vector<DataWorkerDemand>& demands, const std::vector<double>& remote_cores);

// Its `policy:` keys (besides backfill): goldminer_worker_cores (cores per data worker, the unit in
// which idle CPUs are handed out) and goldminer_equal_split (split them equally among the
// input-bound jobs instead of by marginal gain: the ablation).
struct GoldMinerParams {
  double worker_cores = 1;
  bool equal_split = false;
  static std::vector<ParamSpec> Keys();
  static GoldMinerParams From(const ParamSet& set);
};

std::unique_ptr<SchedulingPolicy> MakeGoldMinerPolicy(const PolicyParams& params);

}  // namespace dlsim::cluster

#endif  // DLSIM_CLUSTER_POLICIES_GOLDMINER_H_
