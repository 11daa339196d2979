// Online K-hop GNN sampling queries on a dynamic graph: graph-database on-demand sampling vs Helios'
// event-driven pre-sampling (PPoPP 2025), under the same edge stream and query load.
//
//   gnn::OnlineServingRegistry reg("online-serving");
//   gnn::RegisterOnlineServing(reg);
//   auto r = (*reg.Create("helios"))->Run(nodes, stream, options, stores);   // Result<OnlineResult>
//   r->latency_us.p99;
//
// `workers` machines each own the vertices v with v mod workers == their index.
//   on-demand: every hop of a query is a request to the owner of each frontier vertex (a round trip
//     of 2 x network_latency_us); the owner scans the vertex's whole adjacency (degree x
//     scan_ns_per_edge, the skew of the real graph) and draws min(fanout, degree) neighbours
//     uniformly, one request at a time (a FIFO server that also applies every edge update,
//     insert_ns each). A hop ends when its slowest reply is back.
//   helios: the owner's sampling worker keeps each vertex's bounded sample (a SampleStore), updated
//     on every arriving edge (insert_ns, FIFO); a subscription table (for 2 hops: the owner of v and
//     the owners of the vertices whose sample holds v) says which serving workers get the new
//     sample, pushed over the network (push_ns to apply, FIFO at the serving worker). A query is
//     answered by the seed owner's serving worker from its local cache: (1 + f1 + f1 f2) x lookup_ns,
//     queued behind the pushes; no network on the request path.
// A query's latency includes the client's round trip to the serving worker (2 x
// network_latency_us) in both. Seeds are uniform over the vertices the stream touches. Latencies
// and staleness (edge arrival -> applied at a serving worker) use core/stats.h
// percentiles. CPU costs are our assumptions (docs/gnn.md), not measurements. Answers (with
// record_answers) are the sorted union of every hop's sampled vertices, read at the query's
// arrival from the sampling state (Helios) or the adjacency (on-demand). Thread-compatible.
#ifndef DLSIM_GNN_ONLINE_ONLINE_SERVING_H_
#define DLSIM_GNN_ONLINE_ONLINE_SERVING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/core/stats.h"
#include "dlsim/gnn/online/online_sampler.h"

namespace dlsim::gnn {

struct OnlineOptions {
  std::vector<int> fanouts = {10, 5};  // per hop, seeds first; helios handles 1 or 2 hops
  int workers = 8;
  double query_rate_per_s = 10000;  // Poisson arrivals
  int64_t queries = 10000;
  int64_t query_start_ns = 0;      // the first query's earliest arrival
  std::string sampler = "top-k";   // helios' SampleStore
  int sample_size = 0;             // k kept per vertex; 0 = the largest fanout
  double network_latency_us = 50;  // one way
  double scan_ns_per_edge = 20;    // on-demand: read one adjacency entry
  double sample_ns = 50;           // on-demand: draw one neighbour
  double request_ns = 2000;        // on-demand: handle one request (RPC, lookup)
  double insert_ns = 500;          // apply one edge endpoint (graph store or sampling worker)
  double push_ns = 500;            // helios: a serving worker applies one pushed sample
  double lookup_ns = 100;          // helios: read one cached sample
  uint64_t seed = 1;
  bool record_answers = false;
};

struct OnlineResult {
  Percentiles latency_us;                    // per query, arrival -> answer
  double throughput_qps = 0;                 // queries / (last answer - first arrival)
  Percentiles staleness_ms;                  // helios: edge arrival -> its sample applied at a serving worker
  double cache_bytes = 0;                    // helios: the serving workers' sample caches; on-demand: 0
  double store_bytes = 0;                    // the samples (helios) or adjacency (on-demand) of the workers
  int64_t messages = 0;                      // network messages
  std::vector<std::vector<NodeId>> answers;  // with record_answers, per query in arrival order
};

class OnlineServing {
 public:
  virtual ~OnlineServing() = default;
  // Errors (kInvalidArgument): no fanout, a fanout < 1, helios with more than 2 hops or 64 workers, workers <
  // 1, a rate or cost that is not positive, an unknown sampler.
  virtual Result<OnlineResult> Run(int64_t nodes, const std::vector<StreamEdge>& stream,
                                   const OnlineOptions& o, const SampleStoreRegistry& stores) const = 0;
};
using OnlineServingRegistry = Registry<OnlineServing>;

// on-demand (graph-database sampling, the baseline) and helios.
void RegisterOnlineServing(OnlineServingRegistry& reg);

}  // namespace dlsim::gnn

#endif  // DLSIM_GNN_ONLINE_ONLINE_SERVING_H_
