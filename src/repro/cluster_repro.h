// Shared by the cluster reproductions (Aryl, EasyScale): the capacity-loaning workload pieces.
#ifndef DLSIM_SRC_REPRO_CLUSTER_REPRO_H_
#define DLSIM_SRC_REPRO_CLUSTER_REPRO_H_

#include "dlsim/cluster/options.h"
#include "dlsim/cluster/result.h"
#include "dlsim/core/result.h"

namespace dlsim::repro {

// The Alibaba GenAI QPS curve (data/traces/alibaba_genai/qps_per_minute.csv, embedded) in
// 10-minute buckets at `per_server_qps`, repeated daily, as the demand of `pool`.
Result<cluster::CapacityOptions> GenAiDemand(std::vector<int> pool, double per_server_qps);

// Mean cluster usage over [0, until_s]: training's busy GPUs (the utilisation series) plus the
// pool's own demand, over all GPUs. The series' interval must divide until_s.
double UsageUntil(const cluster::ClusterOptions& o, const cluster::ClusterResult& r, double until_s);

}  // namespace dlsim::repro

#endif  // DLSIM_SRC_REPRO_CLUSTER_REPRO_H_
