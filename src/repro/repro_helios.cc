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
#include <string_view>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/repro/reproduction.h"
#include "real_graph_runs.h"

namespace dlsim::embedded {
std::string_view TigergraphKhopThroughputCsv();  // data/repro/tigergraph_khop_throughput.csv
}  // namespace dlsim::embedded

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

// Server costs: on-demand's per request and per scanned adjacency entry; Helios' per cached lookup.
struct DbCosts {
  double request_ns = 2000, scan_ns = 20;  // gnn::OnlineOptions' defaults: a fast in-memory store
  double lookup_ns = 100;                  // and a 100 ns cached-sample read
};

// DGS, Helios' open-source predecessor, documents "QPS > 20,000" of 2-hop queries per serving worker
// at P99 < 20 ms on a 64-core machine (alibaba/graph-learn docs/en/dgs/intro.md, features included):
// at most 50 us of a machine per query, spread here over the 1 + 10 lookups of a [10, 5] query.
constexpr double kDgsQpsPerMachine = 20000, kLookupsPerQuery = 11;

// TigerGraph priced by its published throughput (data/repro/tigergraph_khop_throughput.csv): a
// machine's time per query is request + neighbours x scan, the line through the 1- and 2-hop rows.
Result<DbCosts> TigerGraphCosts() {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t,
                         ParseCsv(embedded::TigergraphKhopThroughputCsv(), "tigergraph_khop_throughput.csv"));
  if (t.rows.size() != 2) return Error::Parse(t.file_name + ": expected the k = 1 and k = 2 rows");
  double ns[2], n[2];
  for (size_t r = 0; r < 2; ++r) {
    DLSIM_ASSIGN_OR_RETURN(double qps, t.Number(r, "qps"));
    DLSIM_ASSIGN_OR_RETURN(n[r], t.Number(r, "avg_neighbours"));
    ns[r] = 1e9 / qps;
  }
  DbCosts c{.scan_ns = (ns[1] - ns[0]) / (n[1] - n[0])};
  c.request_ns = ns[0] - n[0] * c.scan_ns;
  if (!(c.scan_ns > 0) || !(c.request_ns > 0)) return Error::Parse(t.file_name + ": no positive line");
  return c;
}

gnn::OnlineOptions Load(double rate, const DbCosts& db) {
  gnn::OnlineOptions o;
  o.query_rate_per_s = rate;
  o.queries = static_cast<int64_t>(rate * kWindowS);
  o.query_start_ns = kStartNs;
  o.request_ns = db.request_ns;
  o.scan_ns_per_edge = db.scan_ns;
  o.lookup_ns = db.lookup_ns;
  return o;
}

// The three systems compared, on one edge stream.
struct Bench {
  std::unique_ptr<gnn::OnlineServing> demand, helios;
  gnn::SampleStoreRegistry stores{"online-sampler"};
  std::vector<gnn::StreamEdge> stream;
  int64_t nodes = 0;
  DbCosts memory, tigergraph, dgs{.lookup_ns = 1e9 / kDgsQpsPerMachine / kLookupsPerQuery};
  Result<gnn::OnlineResult> Run(const gnn::OnlineServing& sys, double rate, const DbCosts& db) const {
    return sys.Run(nodes, stream, Load(rate, db), stores);
  }
};

// The bench on `edges` (R-MAT scale 15 for the headline, or a shipped real graph), streamed alike.
Result<Bench> MakeBench(const gnn::EdgeList& edges) {
  gnn::OnlineServingRegistry reg("online-serving");
  gnn::RegisterOnlineServing(reg);
  Bench b;
  gnn::RegisterSampleStores(b.stores);
  DLSIM_ASSIGN_OR_RETURN(b.demand, reg.Create("on-demand"));
  DLSIM_ASSIGN_OR_RETURN(b.helios, reg.Create("helios"));
  DLSIM_ASSIGN_OR_RETURN(b.tigergraph, TigerGraphCosts());
  b.nodes = edges.num_nodes;
  b.stream = gnn::ReplayEdges(edges, 1e5, 1);
  const auto end = static_cast<int64_t>(kStartNs + 2 * kWindowS * 1e9);  // later edges reach no query
  b.stream.erase(
      std::find_if(b.stream.begin(), b.stream.end(), [end](const auto& e) { return e.t_ns > end; }),
      b.stream.end());
  return b;
}

// The highest rate within the SLO: doubling from kFirstRate until it breaks, then kBisections
// geometric bisections. 0 when even kFirstRate breaks it; kMaxRate when nothing below does.
Result<double> Capacity(const Bench& b, const gnn::OnlineServing& sys, const DbCosts& db) {
  auto meets = [&](double rate) -> Result<bool> {
    DLSIM_ASSIGN_OR_RETURN(gnn::OnlineResult r, b.Run(sys, rate, db));
    return r.latency_us.p99 <= kSloUs;
  };
  double ok = 0, bad = kFirstRate;
  for (;;) {
    DLSIM_ASSIGN_OR_RETURN(bool m, meets(bad));
    if (!m) break;
    ok = bad;
    if (bad >= kMaxRate) return kMaxRate;
    bad *= 2;
  }
  if (ok == 0) return 0.0;
  for (int i = 0; i < kBisections; ++i) {
    const double mid = std::sqrt(ok * bad);
    DLSIM_ASSIGN_OR_RETURN(bool m, meets(mid));
    (m ? ok : bad) = mid;
  }
  return ok;
}

struct Point {
  double rate = 0;
  gnn::OnlineResult tigergraph, memory, helios;
};

Result<std::vector<Point>> Sweep(const Bench& b, std::vector<double> rates) {
  std::vector<Point> out;
  for (double rate : rates) {
    Point p;
    p.rate = rate;
    DLSIM_ASSIGN_OR_RETURN(p.tigergraph, b.Run(*b.demand, rate, b.tigergraph));
    DLSIM_ASSIGN_OR_RETURN(p.memory, b.Run(*b.demand, rate, b.memory));
    DLSIM_ASSIGN_OR_RETURN(p.helios, b.Run(*b.helios, rate, b.memory));
    out.push_back(std::move(p));
  }
  return out;
}

nlohmann::ordered_json Row(const Point& p) {
  return {{"qps", p.rate},
          {"tigergraph_p50_us", p.tigergraph.latency_us.p50},
          {"tigergraph_p99_us", p.tigergraph.latency_us.p99},
          {"memory_store_p99_us", p.memory.latency_us.p99},
          {"helios_p50_us", p.helios.latency_us.p50},
          {"helios_p99_us", p.helios.latency_us.p99},
          {"p99_ratio", p.tigergraph.latency_us.p99 / p.helios.latency_us.p99},
          {"staleness_p99_ms", p.helios.staleness_ms.p99},
          {"helios_msgs", p.helios.messages},
          {"tigergraph_msgs", p.tigergraph.messages}};
}

struct Capacities {
  double tigergraph = 0, memory = 0, helios = 0, helios_dgs = 0;
};

class HeliosReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    DLSIM_ASSIGN_OR_RETURN(gnn::EdgeList rmat, gnn::GenerateRmat({.scale = 15, .edge_factor = 8}));
    DLSIM_ASSIGN_OR_RETURN(Bench b, MakeBench(rmat));
    Capacities c;
    DLSIM_ASSIGN_OR_RETURN(c.tigergraph, Capacity(b, *b.demand, b.tigergraph));
    DLSIM_ASSIGN_OR_RETURN(c.memory, Capacity(b, *b.demand, b.memory));
    DLSIM_ASSIGN_OR_RETURN(c.helios, Capacity(b, *b.helios, b.memory));
    DLSIM_ASSIGN_OR_RETURN(c.helios_dgs, Capacity(b, *b.helios, b.dgs));
    std::vector<double> rates(std::begin(kRates), std::end(kRates));
    rates.push_back(c.tigergraph);
    std::sort(rates.begin(), rates.end());
    DLSIM_ASSIGN_OR_RETURN(std::vector<Point> pts, Sweep(b, rates));
    ReproResult r;
    double p99_at_capacity = 0;  // at the baseline's capacity
    for (const Point& p : pts) {
      r.details.push_back(Row(p));
      if (p.rate == c.tigergraph) p99_at_capacity = p.tigergraph.latency_us.p99 / p.helios.latency_us.p99;
    }
    Describe(r, b, c, p99_at_capacity, pts.back());
    DLSIM_ASSIGN_OR_RETURN(r.real_graphs, RealGraphs(env, b, c));
    return r;
  }

 private:
  // The shipped real graphs streamed as R-MAT is (the same rate and window: their first ~90K edges
  // in a random order), with both sides priced by published rates only: the TigerGraph-priced
  // baseline against Helios at DGS's documented QPS (the assumed 100 ns lookup is left out).
  // The first row is the headline's R-MAT graph, from its capacities `rmat`.
  static Result<nlohmann::ordered_json> RealGraphs(const ReproEnv& env, const Bench& rmat_bench,
                                                   const Capacities& rmat) {
    nlohmann::ordered_json rows = nlohmann::ordered_json::array();
    DLSIM_ASSIGN_OR_RETURN(auto graphs, internal::ReadShippedGraphs(env));
    if (graphs.empty()) return rows;
    rows.push_back(CapacityRow("rmat-15 (headline)", rmat_bench, rmat.tigergraph, rmat.helios_dgs));
    for (const ReproEnv::NamedEdgeList& g : graphs) {
      DLSIM_ASSIGN_OR_RETURN(Bench b, MakeBench(*g.edges));
      DLSIM_ASSIGN_OR_RETURN(double tigergraph, Capacity(b, *b.demand, b.tigergraph));
      DLSIM_ASSIGN_OR_RETURN(double helios_dgs, Capacity(b, *b.helios, b.dgs));
      rows.push_back(CapacityRow(g.name, b, tigergraph, helios_dgs));
    }
    return rows;
  }
  static nlohmann::ordered_json CapacityRow(const std::string& graph, const Bench& b, double tigergraph,
                                            double helios_dgs) {
    return {{"graph", graph},
            {"streamed_edges", b.stream.size()},
            {"tigergraph_qps", tigergraph},
            {"helios_dgs_qps", helios_dgs},
            {"ratio", tigergraph > 0 ? helios_dgs / tigergraph : 0}};
  }

  static void Describe(ReproResult& r, const Bench& b, const Capacities& c, double p99_ratio,
                       const Point& top) {
    r.name = "helios";
    r.claim =
        "Helios serves 2-hop GNN sampling queries with up to 67x the throughput and 32x lower P99 than graph "
        "databases";
    r.paper_ratio = 67;
    r.off_cause =
        "Helios' own CPU costs are assumed (100 ns a cached lookup, 500 ns a push); at DGS's documented 20K "
        "QPS a machine the ratio is 4.8x: the baseline's costs are TigerGraph's published throughput, "
        "Helios' "
        "are not pinned; a 90K-edge graph; the paper's setup is not public";
    r.our_ratio = c.tigergraph > 0 ? c.helios / c.tigergraph : 0;
    r.workload = fmt::format(
        "R-MAT scale 15 streamed at 100K edges/s ({} edges until the last query), 2-hop [10, 5] queries from "
        "0.5 s on for 200 ms, 8 machines",
        b.stream.size());
    r.baseline = fmt::format(
        "on-demand sampling on a graph database priced as TigerGraph's published k-hop throughput ({:.1f} us "
        "a "
        "request, {:.1f} ns a neighbour): each hop a request to the frontier's owners, which scan whole "
        "adjacencies",
        b.tigergraph.request_ns / 1e3, b.tigergraph.scan_ns);
    r.notes = fmt::format(
        "capacity at P99 <= 20 ms (doubling then bisection, 4.4%): Helios {:.0f}{} QPS, TigerGraph-priced "
        "{:.0f}, an in-memory store (2 us a request, 20 ns an entry) {:.0f} ({:.1f}x); Helios at DGS's "
        "documented 20K QPS a machine ({:.1f} us a lookup) {:.0f} ({:.1f}x the TigerGraph-priced); {:.1f}x "
        "lower P99 at the baseline's capacity (paper 32x); Helios' caches {:.1f} MB beside the sample "
        "store's {:.1f} MB. docs/reproductions.md, Helios.",
        c.helios, c.helios >= kMaxRate ? " (the search's cap)" : "", c.tigergraph, c.memory,
        c.memory > 0 ? c.helios / c.memory : 0, b.dgs.lookup_ns / 1e3, c.helios_dgs,
        c.tigergraph > 0 ? c.helios_dgs / c.tigergraph : 0, p99_ratio, top.helios.cache_bytes / 1e6,
        top.helios.store_bytes / 1e6);
  }
};

}  // namespace

void RegisterHelios(ReproRegistry& reg) {
  reg.RegisterBuiltin("helios",
                      "Helios (PPoPP 2025): pre-sampled online GNN inference vs graph databases, 67x",
                      [] { return std::make_unique<HeliosReproduction>(); });
}

}  // namespace dlsim::repro
