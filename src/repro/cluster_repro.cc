#include "cluster_repro.h"

#include <algorithm>

namespace dlsim::embedded {
std::string_view GenAiQpsPerMinuteCsv();  // data/traces/alibaba_genai/qps_per_minute.csv
}  // namespace dlsim::embedded

namespace dlsim::repro {

Result<cluster::CapacityOptions> GenAiDemand(std::vector<int> pool, double per_server_qps) {
  cluster::CapacityOptions cap;
  cluster::QpsOptions q;
  q.per_server_qps = per_server_qps;
  q.bucket = Seconds(600);
  const int servers = static_cast<int>(pool.size());
  DLSIM_ASSIGN_OR_RETURN(
      cap.demand, cluster::DemandFromQps(embedded::GenAiQpsPerMinuteCsv(), "qps_per_minute.csv", q, servers));
  cap.pool = std::move(pool);
  cap.period = Seconds(86400);
  return cap;
}

double UsageUntil(const cluster::ClusterOptions& o, const cluster::ClusterResult& r, double until_s) {
  const double interval = o.sample_interval.ToSeconds();
  double busy = 0;
  for (const cluster::UtilSample& s : r.utilisation)
    if (s.t_s <= until_s + 1e-9) busy += s.busy_gpus * interval;
  double inference = 0;
  if (o.capacity) {
    const auto& nodes = o.cluster.nodes();
    const int pool = static_cast<int>(o.capacity->pool.size());
    double pool_gpus = 0;
    for (int n : o.capacity->pool) pool_gpus += nodes[n].gpus;
    for (double t = 0; t < until_s; t += 60) {
      const int d = std::min(cluster::DemandAt(*o.capacity, TimePoint::Start() + Seconds(t)), pool);
      inference += pool_gpus * d / std::max(pool, 1) * std::min(60.0, until_s - t);
    }
  }
  const double total = static_cast<double>(o.cluster.total_gpus());
  return until_s > 0 && total > 0 ? (busy + inference) / (total * until_s) : 0;
}

}  // namespace dlsim::repro
