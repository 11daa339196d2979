// Aryl (arXiv 2202.07896; EuroSys'23 as "Lyra"): capacity loaning from an inference cluster plus
// elastic scaling. Claim (EuroSys): 1.53x lower average queuing time, 1.48x lower average JCT (arXiv:
// 1.50x), +25% usage, against FIFO without loaning and elastic scaling, on a 15-day trace of 50,390
// ByteDance jobs (not public).
//
// The paper's setup as far as our trace allows (docs/reproductions.md, "Aryl"): Philly virtual cluster
// 6214e9, 15 days (4,902 jobs; data/traces/philly/philly_6214e9_15d.csv); a training cluster whose size is
// calibrated so that the baseline's mean queue over mean JCT is the paper's (3,072 s / 16,610 s = 0.185);
// an inference pool of 0.39 x the training cluster's capacity (4,160 T4 beside 3,544 V100, three T4
// servers worth one V100 server), its demand the Alibaba GenAI QPS curve; 21% of the jobs may run on
// loaned servers, 5% are elastic with linear scaling, no job checkpoints, a preemption costs 63 s.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cluster_repro.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/trace.h"
#include "dlsim/core/rng.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::embedded {
std::string_view Philly6214e915dCsv();  // data/traces/philly/philly_6214e9_15d.csv
}  // namespace dlsim::embedded

namespace dlsim::repro {
namespace {

constexpr double kWindowS = 15 * 86400.0;
// The paper's published values (Lyra, EuroSys'23, Sec. 6 and Table 3).
constexpr double kPaperQueueOverJct = 3072.0 / 16610.0;  // the FIFO baseline's mean queue / mean JCT
constexpr double kPoolCapacity = 4160.0 / 3544.0 / 3;    // inference capacity / training capacity
constexpr double kFlexibleShare = 0.21;                  // jobs that may run on any GPU type
constexpr double kElasticGpuTime = 0.36;                 // elastic jobs' share of GPU time (5% of the jobs)
constexpr int kCalibrationNodes[] = {8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32};

struct Variant {
  const char* name;
  bool loan, elastic;
  const char* reclaim;
  double pool_factor = 1;  // x the paper's pool capacity
  double elastic_gpu_time = kElasticGpuTime;
  double flexible_share = kFlexibleShare;
};

// Lyra's elastic jobs are few and long (5% of the jobs, 36% of the GPU time, 14.2 h on average): the jobs
// with the most GPU time, in that order, until they hold `gpu_time_share` of it; each runs on its request
// up to 4x it (at most 32 GPUs), scaling linearly (the paper's default).
void MakeLongestElastic(std::vector<cluster::JobSpec>& jobs, double gpu_time_share) {
  std::vector<size_t> order(jobs.size());
  double total = 0;
  for (size_t i = 0; i < jobs.size(); ++i) order[i] = i, total += jobs[i].gpus * jobs[i].work;
  std::stable_sort(order.begin(), order.end(), [&jobs](size_t a, size_t b) {
    return jobs[a].gpus * jobs[a].work > jobs[b].gpus * jobs[b].work;
  });
  double taken = 0;
  for (size_t i : order) {
    if (taken >= gpu_time_share * total) break;
    cluster::JobSpec& j = jobs[i];
    if (j.gpus < 1) continue;
    j.min_gpus = j.gpus;
    j.max_gpus = std::min(32, 4 * j.gpus);
    j.scaling = 1.0;
    taken += j.gpus * j.work;
  }
}

// Lyra places only "flexible" jobs (any GPU type) and elastic jobs' extra workers on loaned servers: all
// but a seeded `flexible_share` of the rigid jobs are restricted to the training GPUs.
void RestrictToTraining(cluster::ClusterOptions& o, double flexible_share) {
  const int train_type = *o.cluster.FindGpuType("v100");
  Rng draw = Rng(7).Stream("aryl/flexible");
  for (cluster::JobSpec& j : o.jobs) {
    const bool flexible = draw.NextDouble() < flexible_share;  // one draw per job, in trace order
    if (!flexible && !cluster::IsElastic(j)) j.gpu_types = {train_type};
  }
}

// The pool's per-server QPS is set so the curve's peak 10 minutes (8.24 QPS) need all of it.
Result<cluster::ClusterOptions> ArylWorkload(int train_nodes, const Variant& v) {
  const int pool = std::max(1, static_cast<int>(std::lround(train_nodes * kPoolCapacity * v.pool_factor)));
  cluster::ClusterOptions o;
  o.cluster.AddNodes("train", "v100", train_nodes, 8, 0, 0, 0);
  o.cluster.AddNodes("infer", "t4-equivalent", pool, 8, 0, 0, 0);
  std::vector<int> nodes;
  for (int n = 0; n < pool; ++n) nodes.push_back(train_nodes + n);
  DLSIM_ASSIGN_OR_RETURN(cluster::CapacityOptions cap, GenAiDemand(nodes, 8.24 / pool));
  o.capacity = std::move(cap);
  o.capacity->checkpoint_interval = Seconds(30 * 86400.0);  // no checkpoints: a preemption loses the run
  cluster::TraceOptions t;
  t.format = cluster::TraceFormat::kPhilly;
  DLSIM_ASSIGN_OR_RETURN(
      o.jobs, cluster::ParseTrace(embedded::Philly6214e915dCsv(), "philly_6214e9_15d.csv", t, o.cluster));
  MakeLongestElastic(o.jobs, v.elastic_gpu_time);
  RestrictToTraining(o, v.flexible_share);
  o.policy = "aryl";
  o.policy_params.round = Seconds(60);
  o.restart_overhead = Seconds(63);
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

// The training cluster whose baseline queues like the paper's: the size in kCalibrationNodes whose
// FIFO baseline's mean queue over mean JCT is closest to the paper's 0.185.
Result<int> CalibrateTrainingNodes(const ReproEnv& env, nlohmann::ordered_json& rows) {
  int best = kCalibrationNodes[0];
  double best_gap = 1e300;
  const Variant base{"baseline", false, false, "least-cost"};
  for (int n : kCalibrationNodes) {
    DLSIM_ASSIGN_OR_RETURN(cluster::ClusterOptions o, ArylWorkload(n, base));
    o.capacity->loan = false;
    o.policy_params.own.Set("elastic", false);
    DLSIM_ASSIGN_OR_RETURN(cluster::ClusterResult res, cluster::Simulate(o, *env.catalogs, nullptr));
    const double ratio = res.summary.queued_s.mean / res.summary.jct_s.mean;
    rows.push_back({{"training_nodes", n}, {"baseline_queue_over_jct", ratio}});
    if (std::fabs(std::log(ratio / kPaperQueueOverJct)) < best_gap) {
      best_gap = std::fabs(std::log(ratio / kPaperQueueOverJct));
      best = n;
    }
  }
  return best;
}

class ArylReproduction final : public Reproduction {
 public:
  Result<ReproResult> Run(const ReproEnv& env) const override {
    const std::vector<Variant> variants = {
        {"baseline (FIFO, no loaning, no elastic)", false, false, "least-cost"},
        {"loaning only", true, false, "least-cost"},
        {"elastic only", false, true, "least-cost"},
        {"aryl (loaning + elastic)", true, true, "least-cost"},
        {"aryl, random reclaim", true, true, "random"},
        {"aryl, pool 2x the paper's", true, true, "least-cost", 2},
        {"aryl, pool 0.5x the paper's", true, true, "least-cost", 0.5},
        {"aryl, every job flexible", true, true, "least-cost", 1, kElasticGpuTime, 1.0},
        {"aryl, elastic = 60% of GPU time", true, true, "least-cost", 1, 0.6}};
    nlohmann::ordered_json calibration = nlohmann::ordered_json::array();
    DLSIM_ASSIGN_OR_RETURN(const int train_nodes, CalibrateTrainingNodes(env, calibration));
    ReproResult r;
    cluster::ClusterResult base;
    std::vector<double> usage;
    for (const Variant& v : variants) {
      DLSIM_ASSIGN_OR_RETURN(cluster::ClusterOptions o, ArylWorkload(train_nodes, v));
      o.capacity->loan = v.loan;
      o.policy_params.own.Set("elastic", v.elastic);
      o.policy_params.own.Set("reclaim", std::string(v.reclaim));
      DLSIM_ASSIGN_OR_RETURN(cluster::ClusterResult res, cluster::Simulate(o, *env.catalogs, nullptr));
      if (r.details.empty()) base = res;
      r.details.push_back(Row(v, o, res, base));
      usage.push_back(UsageUntil(o, res, kWindowS));
    }
    Describe(train_nodes, usage, calibration, r);
    return r;
  }

 private:
  static void Describe(int train_nodes, const std::vector<double>& usage,
                       const nlohmann::ordered_json& calibration, ReproResult& r) {
    r.name = "aryl";
    r.claim =
        "Aryl/Lyra: 1.53x lower average queuing time, 1.48x lower average JCT (arXiv: 1.50x), +25% usage";
    r.paper_ratio = 1.48;
    r.our_ratio = r.details[3]["jct_gain"].get<double>();
    r.operating_point = fmt::format(
        "the paper's main scenario on our trace: FIFO baseline queueing like the paper's (mean queue / mean "
        "JCT "
        "0.185: {} training servers), an inference pool of 0.39x their capacity, 21% flexible jobs, elastic "
        "jobs "
        "holding 36% of the GPU time, no checkpoints",
        train_nodes);
    r.off_cause =
        "the ByteDance trace is not public: on Philly's, with the paper's pool, job mix and baseline "
        "queueing, "
        "the JCT gain is what the rows show";
    r.points = {{"queuing time", 1.53, r.details[3]["queue_gain"].get<double>(), ""},
                {"JCT", 1.48, r.our_ratio, ""},
                {"usage (1 + gain)", 1.25, usage[3] / usage[0], ""},
                {"loaning only, JCT", 16610.0 / 12947, r.details[1]["jct_gain"].get<double>(), ""},
                {"elastic only, JCT", 16610.0 / 12048, r.details[2]["jct_gain"].get<double>(), ""}};
    r.workload = fmt::format(
        "Philly VC 6214e9, 15 days, 4,902 jobs of 1-8 GPUs (the longest, 36% of the GPU time, elastic up to "
        "4x, "
        "linear; 21% may run on loaned servers), {} x 8 training GPUs + an inference pool of 0.39x that "
        "capacity on the Alibaba "
        "GenAI "
        "QPS curve (daily); 63 s per preemption, no checkpoints",
        train_nodes);
    r.baseline =
        "FIFO on the training cluster (Aryl's scheduler without loaning or elastic scaling), 60 s rounds";
    r.notes = fmt::format(
        "queuing {:.2f}x (paper 1.53x), JCT {:.2f}x (paper 1.48x), usage over the 15 days {:.1f}% -> {:.1f}% "
        "({:+.1f}%; paper +25%). Calibration (training servers: baseline mean queue / mean JCT): {}. The "
        "pool's "
        "T4 servers are modelled as V100-speed servers of the same total capacity (0.39x). See "
        "docs/reproductions.md, Aryl.",
        r.details[3]["queue_gain"].get<double>(), r.our_ratio, 100 * usage[0], 100 * usage[3],
        100 * (usage[3] / usage[0] - 1), calibration.dump());
  }
};

}  // namespace

void RegisterAryl(ReproRegistry& reg) {
  reg.RegisterBuiltin("aryl",
                      "Aryl/Lyra (EuroSys'23): capacity loaning + elastic scaling vs neither, 1.50x JCT",
                      [] { return std::make_unique<ArylReproduction>(); });
}

}  // namespace dlsim::repro
