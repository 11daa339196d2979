// Helios (Sun et al., PPoPP 2025): online GNN inference with event-driven pre-sampling on a dynamic
// graph. Claim: up to 67x higher serving throughput and up to 32x lower P99 latency than sampling
// on graph databases.
//
// Workload: a Graph500 R-MAT graph (scale 15, edge factor 8) replayed as an edge stream at 100K
// edges/s; 2-hop queries [10, 5] with uniform seeds at a swept rate; 8 machines; 50 us one-way
// network latency. Baseline: on-demand sampling (gnn "on-demand"). Ours: gnn "helios" with top-k
// samples. Throughput at the SLO = each system's capacity: the highest rate whose P99 stays within
// 20 ms (DGS's target) over a 200 ms arrival window, found by doubling the rate from 10K QPS until
// the SLO breaks and four geometric bisections (4.4% resolution). Choices and findings:
// docs/reproductions.md, "Helios".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {
namespace {

constexpr double kSloUs = 20000;
constexpr double kRates[] = {1e4, 1e5, 3e5, 1e6};  // the table's rates
constexpr int64_t kStartNs = 500'000'000;          // queries start after 0.5 s of the stream
// and arrive for 200 ms: 10x the SLO, so a load 10% past capacity queues over 20 ms by the window's
// end (a 20 ms window, used until December 2026, could not show an overload under 2x)
constexpr double kWindowS = 0.2;
constexpr double kFirstRate = 1e4, kMaxRate = 1e9;
constexpr int kBisections = 4;

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

struct Systems {
  std::unique_ptr<gnn::OnlineServing> demand, helios;
  gnn::SampleStoreRegistry stores{"online-sampler"};
};

Result<Systems> MakeSystems() {
  gnn::OnlineServingRegistry reg("online-serving");
  gnn::RegisterOnlineServing(reg);
  Systems s;
  gnn::RegisterSampleStores(s.stores);
  DLSIM_ASSIGN_OR_RETURN(s.demand, reg.Create("on-demand"));
  DLSIM_ASSIGN_OR_RETURN(s.helios, reg.Create("helios"));
  return s;
}

Result<bool> MeetsSlo(const gnn::OnlineServing& sys, const Systems& s, double rate,
                      const std::vector<gnn::StreamEdge>& stream, int64_t nodes) {
  DLSIM_ASSIGN_OR_RETURN(gnn::OnlineResult r, sys.Run(nodes, stream, Load(rate), s.stores));
  return r.latency_us.p99 <= kSloUs;
}

// The highest rate within the SLO: doubling from kFirstRate until it breaks, then kBisections
// geometric bisections. 0 when even kFirstRate breaks it; kMaxRate when nothing below does.
Result<double> Capacity(const gnn::OnlineServing& sys, const Systems& s,
                        const std::vector<gnn::StreamEdge>& stream, int64_t nodes) {
  double ok = 0, bad = kFirstRate;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool meets, MeetsSlo(sys, s, bad, stream, nodes));
    if (!meets) break;
    ok = bad;
    if (bad >= kMaxRate) return kMaxRate;
    bad *= 2;
  }
  if (ok == 0) return 0.0;
  for (int i = 0; i < kBisections; ++i) {
    const double mid = std::sqrt(ok * bad);
    DLSIM_ASSIGN_OR_RETURN(bool meets, MeetsSlo(sys, s, mid, stream, nodes));
    (meets ? ok : bad) = mid;
  }
  return ok;
}

Result<std::vector<Point>> Sweep(const Systems& s, const std::vector<gnn::StreamEdge>& stream, int64_t nodes,
                                 std::vector<double> rates) {
  std::vector<Point> out;
  for (double rate : rates) {
    Point p;
    p.rate = rate;
    DLSIM_ASSIGN_OR_RETURN(p.demand, s.demand->Run(nodes, stream, Load(rate), s.stores));
    DLSIM_ASSIGN_OR_RETURN(p.helios, s.helios->Run(nodes, stream, Load(rate), s.stores));
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
    DLSIM_ASSIGN_OR_RETURN(Systems sys, MakeSystems());
    DLSIM_ASSIGN_OR_RETURN(double demand_tp, Capacity(*sys.demand, sys, stream, edges.num_nodes));
    DLSIM_ASSIGN_OR_RETURN(double helios_tp, Capacity(*sys.helios, sys, stream, edges.num_nodes));
    std::vector<double> rates(std::begin(kRates), std::end(kRates));
    rates.push_back(demand_tp);
    std::sort(rates.begin(), rates.end());
    DLSIM_ASSIGN_OR_RETURN(std::vector<Point> pts, Sweep(sys, stream, edges.num_nodes, rates));
    ReproResult r;
    double p99_at_capacity = 0;  // at the baseline's capacity
    for (const Point& p : pts) {
      r.details.push_back(Row(p));
      if (p.rate == demand_tp) p99_at_capacity = p.demand.latency_us.p99 / p.helios.latency_us.p99;
    }
    Describe(r, stream.size(), demand_tp, helios_tp, p99_at_capacity, pts.back());
    return r;
  }

 private:
  static void Describe(ReproResult& r, size_t edges, double demand_tp, double helios_tp, double p99_ratio,
                       const Point& top) {
    r.name = "helios";
    r.claim =
        "Helios serves 2-hop GNN sampling queries with up to 67x the throughput and 32x lower P99 than graph "
        "databases";
    r.paper_ratio = 67;
    r.off_cause =
        "the baseline is priced as an in-memory store (2 us a request, 20 ns a scanned edge), not a graph "
        "database; every CPU cost assumed; a 90K-edge graph; the paper's setup is not public";
    r.our_ratio = demand_tp > 0 ? helios_tp / demand_tp : 0;
    r.workload = fmt::format(
        "R-MAT scale 15 streamed at 100K edges/s ({} edges until the last query), 2-hop [10, 5] queries from "
        "0.5 s on for 200 ms, 8 machines",
        edges);
    r.baseline =
        "on-demand sampling: each hop a request to the frontier's owners, which scan whole adjacencies";
    r.notes = fmt::format(
        "capacity at P99 <= 20 ms (doubling then bisection, 4.4%): {:.0f}{} vs {:.0f} QPS; {:.1f}x lower P99 "
        "at the baseline's capacity (paper 32x); Helios' caches {:.1f} MB beside the sample store's {:.1f} "
        "MB. CPU and RPC costs are assumptions (docs/gnn.md).",
        helios_tp, helios_tp >= kMaxRate ? " (the search's cap)" : "", demand_tp, p99_ratio,
        top.helios.cache_bytes / 1e6, top.helios.store_bytes / 1e6);
  }
};

}  // namespace

void RegisterHelios(ReproRegistry& reg) {
  reg.RegisterBuiltin("helios",
                      "Helios (PPoPP 2025): pre-sampled online GNN inference vs graph databases, 67x",
                      [] { return std::make_unique<HeliosReproduction>(); });
}

}  // namespace dlsim::repro
