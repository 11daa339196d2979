// What the two online-serving policies share: validation, the query stream, the summary.
// Private to src/gnn.
#ifndef DLSIM_SRC_GNN_ONLINE_ONLINE_COMMON_H_
#define DLSIM_SRC_GNN_ONLINE_ONLINE_COMMON_H_

#include <cstdint>
#include <vector>

#include "dlsim/gnn/online/online_serving.h"

namespace dlsim::gnn::internal {

struct Query {
  int64_t t_ns = 0;
  NodeId seed = 0;
};

// Errors as OnlineServing::Run says; `max_hops` is 2 for helios, unbounded (0) for on-demand.
Status CheckOnlineOptions(int64_t nodes, const OnlineOptions& o, int max_hops);
// Poisson arrivals from o.query_start_ns at o.query_rate_per_s, seeds uniform over the vertices
// that appear in the stream (all vertices when it is empty); seeded.
std::vector<Query> MakeQueries(int64_t nodes, const std::vector<StreamEdge>& stream, const OnlineOptions& o);
inline int64_t ToNs(double ns) { return static_cast<int64_t>(ns + 0.5); }
// Latency percentiles (microseconds) and throughput from per-query arrival and answer times at
// the serving worker; both add the client's round trip to it (2 x network_latency_us).
void SummarizeQueries(const std::vector<Query>& q, const std::vector<int64_t>& done_ns,
                      const OnlineOptions& o, OnlineResult& r);

}  // namespace dlsim::gnn::internal

#endif  // DLSIM_SRC_GNN_ONLINE_ONLINE_COMMON_H_
