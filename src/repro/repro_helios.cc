// Helios (Sun et al., PPoPP 2025): online GNN inference with event-driven pre-sampling on a dynamic
// graph. Claim: up to 67x higher serving throughput and up to 32x lower P99 latency than sampling
// on graph databases.
//
// Workload: a Graph500 R-MAT graph (scale 15, edge factor 8) replayed as an edge stream at 100K
// edges/s; 2-hop queries [10, 5] with uniform seeds at a swept rate; 8 machines; 50 us one-way
// network latency. Baseline: on-demand sampling (gnn "on-demand"). Ours: gnn "helios" with top-k
// samples. Throughput at the SLO = the highest swept rate whose P99 stays within 20 ms (DGS's
// target). Choices and findings: docs/reproductions.md, "Helios".
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {
namespace {

constexpr double kSloUs = 20000;
constexpr double kRates[] = {1e4, 1e5, 3e5, 1e6, 3e6};
constexpr int64_t kStartNs = 500'000'000;  // queries start after 0.5 s of the stream
constexpr double kWindowS = 0.02;          // and arrive for 20 ms

struct Point {
  double rate = 0;
  gnn::OnlineResult demand, helios;
};

gnn::OnlineOptions Load(double rate) {
  gnn::OnlineOptions o;
  o.query_rate_per_s = rate;
  o.queries = static_cast<int64_t>(rate * kWindowS);
  o.query_start_ns = kStartNs;
  return o;
}

double AtSlo(const std::vector<Point>& pts, bool helios) {
  double best = 0;
  for (const Point& p : pts) {
    if ((helios ? p.helios : p.demand).latency_us.p99 <= kSloUs) best = p.rate;
  }
  return best;
}

Result<std::vector<Point>> Sweep(const std::vector<gnn::StreamEdge>& stream, int64_t nodes) {
  gnn::OnlineServingRegistry reg("online-serving");
  gnn::RegisterOnlineServing(reg);
  gnn::SampleStoreRegistry stores("online-sampler");
  gnn::RegisterSampleStores(stores);
  DLSIM_ASSIGN_OR_RETURN(auto demand, reg.Create("on-demand"));
  DLSIM_ASSIGN_OR_RETURN(auto helios, reg.Create("helios"));
  std::vector<Point> out;
  for (double rate : kRates) {
    Point p;
    p.rate = rate;
    DLSIM_ASSIGN_OR_RETURN(p.demand, demand->Run(nodes, stream, Load(rate), stores));
    DLSIM_ASSIGN_OR_RETURN(p.helios, helios->Run(nodes, stream, Load(rate), stores));
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json Row(const Point& p) {
  return {{"qps", p.rate},
          {"demand_p50_us", p.demand.latency_us.p50},
          {"demand_p99_us", p.demand.latency_us.p99},
          {"helios_p50_us", p.helios.latency_us.p50},
          {"helios_p99_us", p.helios.latency_us.p99},
          {"p99_ratio", p.demand.latency_us.p99 / p.helios.latency_us.p99},
          {"staleness_p99_ms", p.helios.staleness_ms.p99},
          {"helios_msgs", p.helios.messages},
          {"demand_msgs", p.demand.messages}};
}

class HeliosReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv&) const override {
    DLSIM_ASSIGN_OR_RETURN(gnn::EdgeList edges, gnn::GenerateRmat({.scale = 15, .edge_factor = 8}));
    std::vector<gnn::StreamEdge> stream = gnn::ReplayEdges(edges, 1e5, 1);
    const auto end = static_cast<int64_t>(kStartNs + 2 * kWindowS * 1e9);  // later edges reach no query
    stream.erase(std::find_if(stream.begin(), stream.end(), [end](const auto& e) { return e.t_ns > end; }),
                 stream.end());
    DLSIM_ASSIGN_OR_RETURN(std::vector<Point> pts, Sweep(stream, edges.num_nodes));
    ReproResult r;
    for (const Point& p : pts) r.details.push_back(Row(p));
    const double demand_tp = AtSlo(pts, false), helios_tp = AtSlo(pts, true);
    double p99_at_capacity = 0;  // at the highest rate the baseline still meets the SLO
    for (const Point& p : pts) {
      if (p.rate == demand_tp) p99_at_capacity = p.demand.latency_us.p99 / p.helios.latency_us.p99;
    }
    r.name = "helios";
    r.claim =
        "Helios serves 2-hop GNN sampling queries with up to 67x the throughput and 32x lower P99 than graph "
        "databases";
    r.paper_ratio = 67;
    r.off_cause =
        "the sweep stops at 3M queries/s, below the model's capacity (a lower bound); the baseline is priced "
        "as an in-memory store, not a graph database; a 54K-edge graph";
    r.our_ratio = demand_tp > 0 ? helios_tp / demand_tp : 0;
    r.workload = fmt::format(
        "R-MAT scale 15 streamed at 100K edges/s ({} edges until the last query), 2-hop [10, 5] queries from "
        "0.5 s on for 20 ms, 8 machines",
        stream.size());
    r.baseline =
        "on-demand sampling: each hop a request to the frontier's owners, which scan whole adjacencies";
    r.notes = fmt::format(
        "throughput at P99 <= 20 ms: {:.0f}{} vs {:.0f} QPS; {:.1f}x lower P99 at the baseline's highest "
        "rate within the SLO (paper 32x; past it the "
        "baseline's queue grows without bound); Helios' caches {:.1f} MB beside the sample store's {:.1f} "
        "MB. CPU "
        "and RPC costs are assumptions (docs/gnn.md).",
        helios_tp, helios_tp == kRates[std::size(kRates) - 1] ? " (the sweep's top rate: a lower bound)" : "",
        demand_tp, p99_at_capacity, pts.back().helios.cache_bytes / 1e6, pts.back().helios.store_bytes / 1e6);
    return r;
  }
};

}  // namespace

void RegisterHelios(ReproRegistry& reg) {
  reg.RegisterBuiltin("helios",
                      "Helios (PPoPP 2025): pre-sampled online GNN inference vs graph databases, 67x",
                      [] { return std::make_unique<HeliosReproduction>(); });
}

}  // namespace dlsim::repro
