// Shared parts of the online-serving policies and their registry (online_serving.h).
#include "dlsim/gnn/online/online_serving.h"

#include <algorithm>
#include <string>

#include "online_common.h"

namespace dlsim::gnn {

std::unique_ptr<OnlineServing> MakeOnDemandServing();  // online_ondemand.cc
std::unique_ptr<OnlineServing> MakeHeliosServing();    // online_helios.cc

namespace internal {

Status CheckOnlineOptions(int64_t nodes, const OnlineOptions& o, int max_hops) {
  if (nodes < 1) return Error::InvalidArgument("online serving: the graph has no vertex");
  if (o.fanouts.empty()) return Error::InvalidArgument("online serving: fanouts: expected at least one hop");
  for (int f : o.fanouts) {
    if (f < 1)
      return Error::InvalidArgument("online serving: fanouts: each must be >= 1, found " + std::to_string(f));
  }
  if (max_hops > 0 && static_cast<int>(o.fanouts.size()) > max_hops)
    return Error::InvalidArgument("online serving: helios: 1 or 2 hops, found " +
                                  std::to_string(o.fanouts.size()));
  if (o.workers < 1 || o.workers > 4096)
    return Error::InvalidArgument("online serving: workers must be 1..4096");
  if (o.queries < 1) return Error::InvalidArgument("online serving: queries must be >= 1");
  for (double v : {o.query_rate_per_s, o.network_latency_us, o.scan_ns_per_edge, o.sample_ns, o.request_ns,
                   o.insert_ns, o.push_ns, o.lookup_ns}) {
    if (!(v > 0)) return Error::InvalidArgument("online serving: rates and costs must be positive");
  }
  if (o.sample_size < 0 || o.query_start_ns < 0)
    return Error::InvalidArgument("online serving: sample_size and query_start_ns must be >= 0");
  return Status::Ok();
}

std::vector<Query> MakeQueries(int64_t nodes, const std::vector<StreamEdge>& stream, const OnlineOptions& o) {
  std::vector<NodeId> pool;
  std::vector<bool> seen(nodes, false);
  for (const StreamEdge& e : stream) {
    for (NodeId x : {e.u, e.v}) {
      if (!seen[x]) seen[x] = true, pool.push_back(x);
    }
  }
  std::sort(pool.begin(), pool.end());
  Rng rng(o.seed);
  Rng gaps = rng.Stream("query-arrivals"), seeds = rng.Stream("query-seeds");
  std::vector<Query> out(o.queries);
  double t = static_cast<double>(o.query_start_ns) * 1e-9;
  for (Query& q : out) {
    t += SampleExponential(gaps, o.query_rate_per_s);
    const uint64_t i = seeds.NextBelow(pool.empty() ? static_cast<uint64_t>(nodes) : pool.size());
    q = {static_cast<int64_t>(t * 1e9), pool.empty() ? static_cast<NodeId>(i) : pool[i]};
  }
  return out;
}

void SummarizeQueries(const std::vector<Query>& q, const std::vector<int64_t>& done_ns,
                      const OnlineOptions& o, OnlineResult& r) {
  std::vector<double> lat(q.size());
  int64_t last = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    lat[i] = static_cast<double>(done_ns[i] - q[i].t_ns) * 1e-3 + 2 * o.network_latency_us;
    last = std::max(last, done_ns[i]);
  }
  r.latency_us = Summarize(lat);
  const double span_s = static_cast<double>(last - q.front().t_ns) * 1e-9;
  r.throughput_qps = span_s > 0 ? static_cast<double>(q.size()) / span_s : 0;
}

}  // namespace internal

void RegisterOnlineServing(OnlineServingRegistry& reg) {
  reg.RegisterBuiltin("on-demand", "graph-database sampling: each hop a request to the frontier's owners",
                      [] { return MakeOnDemandServing(); });
  reg.RegisterBuiltin("helios", "event-driven pre-sampling, subscriptions, local K-hop assembly (Helios)",
                      [] { return MakeHeliosServing(); });
}

}  // namespace dlsim::gnn
