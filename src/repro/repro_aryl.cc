// Aryl (arXiv 2202.07896; EuroSys'23 as "Lyra"): capacity loaning from an inference cluster plus
// elastic scaling. Claim: 1.53x lower average queuing time, 1.50x lower average JCT, up to 26.9%
// higher cluster usage, against the same scheduler without loaning and elastic scaling, on
// 15-day traces of more than 50,000 ByteDance jobs (not public).
//
// Workload: Philly virtual cluster 6214e9, 15 days (4,902 jobs of 1-8 GPUs; embedded slice
// data/traces/philly/philly_6214e9_15d.csv), on a training cluster of 8 x 8 GPUs (the window's
// jobs carry 63 GPUs x 15 days of GPU-time: offered load 0.99), beside an inference pool of 8 x 8 GPUs whose
// demand is the Alibaba GenAI QPS curve (10-minute buckets, 1.1 QPS per server: the peak needs all 8),
// repeated daily. 30% of the jobs are elastic (min = request, max = 4 x request, speed (n / req)^0.8).
// Rows: the baseline, loaning only, elastic only, both (Aryl), both with random reclaim.
// Choices: docs/reproductions.md, "Aryl".
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "cluster_repro.h"
#include "dlsim/cluster/elastic.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/trace.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::embedded {
std::string_view Philly6214e915dCsv();  // data/traces/philly/philly_6214e9_15d.csv
}  // namespace dlsim::embedded

namespace dlsim::repro {
namespace {

constexpr double kWindowS = 15 * 86400.0;

struct Variant {
  const char* name;
  bool loan, elastic;
  const char* reclaim;
  int pool = 8;  // inference servers of 8 GPUs
  double elastic_share = 0.3;
};

// The pool's per-server QPS is set so the curve's peak 10 minutes (8.24 QPS) need all of it:
// 1.1 QPS per server for 8 servers (a sizing choice, not a measurement).
Result<cluster::ClusterOptions> ArylWorkload(int pool, double elastic_share) {
  cluster::ClusterOptions o;
  o.cluster.AddNodes("train", "v100", 8, 8, 0, 0, 0);
  o.cluster.AddNodes("infer", "v100", pool, 8, 0, 0, 0);
  std::vector<int> nodes;
  for (int n = 0; n < pool; ++n) nodes.push_back(8 + n);
  DLSIM_ASSIGN_OR_RETURN(cluster::CapacityOptions cap, GenAiDemand(nodes, 1.1 * 8 / pool));
  o.capacity = std::move(cap);
  o.capacity->checkpoint_interval = Seconds(1800);
  cluster::TraceOptions t;
  t.format = cluster::TraceFormat::kPhilly;
  DLSIM_ASSIGN_OR_RETURN(
      o.jobs, cluster::ParseTrace(embedded::Philly6214e915dCsv(), "philly_6214e9_15d.csv", t, o.cluster));
  cluster::MakeElastic(
      o.jobs, {.fraction = elastic_share, .max_factor = 4, .max_gpus_cap = 32, .scaling = 0.8, .seed = 1});
  o.policy = "aryl";
  o.policy_params.round = Seconds(60);
  o.restart_overhead = Seconds(30);
  o.sample_interval = Seconds(600);
  o.keep_records = false;
  return o;
}

// One row; `base_run` is the baseline run (its schedule does not depend on the pool, which it
// never uses, so its usage at this variant's pool size is UsageUntil of this variant's options).
nlohmann::ordered_json Row(const Variant& v, const cluster::ClusterOptions& o,
                           const cluster::ClusterResult& r, const cluster::ClusterResult& base_run) {
  const cluster::ClusterSummary& s = r.summary;
  const cluster::ClusterSummary& base = base_run.summary;
  const double usage = UsageUntil(o, r, kWindowS);
  return {{"variant", v.name},
          {"queue_mean_h", s.queued_s.mean / 3600},
          {"jct_mean_h", s.jct_s.mean / 3600},
          {"queue_gain", s.queued_s.mean > 0 ? base.queued_s.mean / s.queued_s.mean : 0},
          {"jct_gain", s.jct_s.mean > 0 ? base.jct_s.mean / s.jct_s.mean : 0},
          {"usage_15d", usage},
          {"usage_gain", usage / UsageUntil(o, base_run, kWindowS)},
          {"preemptions", s.preemptions},
          {"reclaimed_nodes", s.reclaimed_nodes},
          {"reclaim_preemptions", s.reclaim_preemptions},
          {"reclaim_shrinks", s.reclaim_shrinks},
          {"lost_gpu_h", s.reclaim_lost_gpu_s / 3600},
          {"resizes", s.resizes},
          {"completed", s.completed}};
}

class ArylReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    const std::vector<Variant> variants = {{"baseline (no loaning, no elastic)", false, false, "least-cost"},
                                           {"loaning only", true, false, "least-cost"},
                                           {"elastic only", false, true, "least-cost"},
                                           {"aryl (loaning + elastic)", true, true, "least-cost"},
                                           {"aryl, random reclaim", true, true, "random"},
                                           {"aryl, pool of 4 servers", true, true, "least-cost", 4},
                                           {"aryl, pool of 2 servers", true, true, "least-cost", 2},
                                           {"aryl, 10% elastic", true, true, "least-cost", 8, 0.1},
                                           {"aryl, 60% elastic", true, true, "least-cost", 8, 0.6}};
    ReproResult r;
    r.name = "aryl";
    r.claim =
        "Aryl/Lyra: 1.53x lower average queuing time, 1.50x lower average JCT, up to 26.9% higher usage";
    r.paper_ratio = 1.50;
    r.off_cause =
        "the baseline's mean queue is ~7.5 h, about 9x the paper's trace, and the loaned pool is as fast as "
        "training GPUs and as large as the training cluster (paper: weaker inference GPUs); a 4-server pool "
        "gives 1.46x";
    cluster::ClusterResult base;
    std::vector<double> usage;
    for (const Variant& v : variants) {
      DLSIM_ASSIGN_OR_RETURN(cluster::ClusterOptions o, ArylWorkload(v.pool, v.elastic_share));
      o.capacity->loan = v.loan;
      o.policy_params.own.Set("elastic", v.elastic);
      o.policy_params.own.Set("reclaim", std::string(v.reclaim));
      DLSIM_ASSIGN_OR_RETURN(cluster::ClusterResult res, cluster::Simulate(o, *env.catalogs, nullptr));
      if (r.details.empty()) base = res;
      r.details.push_back(Row(v, o, res, base));
      usage.push_back(UsageUntil(o, res, kWindowS));
    }
    r.our_ratio = r.details[3]["jct_gain"].get<double>();
    r.workload =
        "Philly VC 6214e9, 15 days, 4,902 jobs of 1-8 GPUs (30% elastic up to 4x), 64 training GPUs at an "
        "offered load of 0.99 "
        "+ an inference pool of 8 x 8 GPUs following the Alibaba GenAI QPS curve (daily)";
    r.baseline =
        "the same Aryl scheduler (FIFO base demands, 60 s rounds) without loaning or elastic scaling";
    r.notes = fmt::format(
        "queuing {:.2f}x (paper 1.53x), JCT {:.2f}x (paper 1.50x), usage over the 15 days {:.1f}% -> {:.1f}% "
        "({:+.1f}%; paper up to +26.9%); reclaim and speed assumptions in docs/reproductions.md",
        r.details[3]["queue_gain"].get<double>(), r.our_ratio, 100 * usage[0], 100 * usage[3],
        100 * (usage[3] / usage[0] - 1));
    return r;
  }
};

}  // namespace

void RegisterAryl(ReproRegistry& reg) {
  reg.RegisterBuiltin("aryl",
                      "Aryl/Lyra (EuroSys'23): capacity loaning + elastic scaling vs neither, 1.50x JCT",
                      [] { return std::make_unique<ArylReproduction>(); });
}

}  // namespace dlsim::repro
