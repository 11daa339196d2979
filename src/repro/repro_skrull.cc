// Skrull (Xu et al., NeurIPS 2025) vs DeepSpeed in long-context SFT, on the paper's setup.
//
// Section 5 of the paper: Qwen2.5-0.5B and Qwen2.5-7B on 32 H100 (4 nodes), ZeRO-2, selective
// recomputation, <DP 4, CP 8, BatchSize 64> (global batch = DP x BatchSize sequences), except 7B on
// ChatQA2 with <DP 2, CP 16, BatchSize 40>; BucketSize (the per-GPU token budget) 26K for 0.5B and
// 13K for 7B. Length mixes: the paper's Table 1 CDFs of Wikipedia, LMsysChat1M and ChatQA2
// (data/repro/skrull_table1_lengths.csv), log-uniform inside each bucket, the first bucket from 32
// tokens, truncated at what a CP group holds (CP x BucketSize). Baseline: DeepSpeed with every
// sequence sharded over the CP group (the paper's Table 4 gives the baseline one peak memory on all
// ranks), each DP rank's BatchSize sequences one per micro-batch, as gradient accumulation (the paper
// names sequence packing as part of Skrull's implementation, not of the baseline): `padding_free`,
// micro-batch 1. Skrull: `skrull` with token_budget = BucketSize.
// Short sequences sharded eight ways lose kernel efficiency through the cost model's shape-dependent
// GEMM and attention efficiency and the per-kernel host time. Each side recomputes selectively, as
// the paper does, or fully where that does not fit our memory model. Published side: the per-(model,
// dataset) speed-ups of Figure 3 (data/repro/skrull_speedups.csv). Choices: docs/reproductions.md,
// "Skrull".
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "data_repro.h"
#include "dlsim/core/csv.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/train/simulate.h"

namespace dlsim::embedded {
std::string_view SkrullSpeedupsCsv();  // data/repro/skrull_speedups.csv
}  // namespace dlsim::embedded

namespace dlsim::repro {
namespace {

constexpr int kGpus = 32;
constexpr int kSteps = 4;
constexpr uint64_t kSeed = 376;

// One (model, dataset) setting of the paper's Section 5.
struct Point {
  const char* model;
  const char* dataset;
  int dp, cp, batch_size;  // batch_size: sequences per DP rank and step
  int64_t bucket;          // BucketSize, tokens per GPU
};
constexpr Point kPoints[] = {
    {"qwen2.5-0.5b", "wikipedia", 4, 8, 64, 26 * 1024}, {"qwen2.5-0.5b", "lmsys", 4, 8, 64, 26 * 1024},
    {"qwen2.5-0.5b", "chatqa2", 4, 8, 64, 26 * 1024},   {"qwen2.5-7b", "wikipedia", 4, 8, 64, 13 * 1024},
    {"qwen2.5-7b", "lmsys", 4, 8, 64, 13 * 1024},       {"qwen2.5-7b", "chatqa2", 2, 16, 40, 13 * 1024},
};

// The published speed-up of (model, dataset), 0 when the table has none.
double PaperSpeedup(const CsvTable& t, const Point& p) {
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto model = t.Text(i, "model"), dataset = t.Text(i, "dataset");
    auto x = t.Number(i, "speedup");
    if (model.ok() && dataset.ok() && x.ok() && *model == p.model && *dataset == p.dataset) return *x;
  }
  return 0;
}

internal::JobSetup PointJob(const Point& p) {
  internal::JobSetup s;
  s.model = p.model;
  s.gpus = kGpus;
  s.tp = 1;
  s.cp = p.cp;
  s.dp = p.dp;
  s.seq_len = static_cast<int>(p.cp * p.bucket);  // a row: what the CP group holds per micro-batch
  s.global_batch = p.dp;
  s.zero = 2;
  s.recompute = train::Recompute::kSelective;
  return s;
}

// One side of a point: its run and the recomputation it needed.
struct SideRun {
  internal::DataRun run;
  train::Recompute recompute = train::Recompute::kSelective;
};

// The paper derives BucketSize from memory (activations linear in tokens, profiled). Ours: the largest
// per-GPU token count, in steps of 1K, whose micro-batch (one sequence of cp x that, sharded over CP) fits
// under the point's layout with selective recomputation.
Result<int64_t> BucketFromMemory(const ReproEnv& env, const Point& p) {
  int64_t lo = 0, hi = 512;  // K tokens per GPU
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    internal::JobSetup s = PointJob(p);
    s.seq_len = static_cast<int>(mid * 1024 * p.cp);
    DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o,
                           internal::MakeTrainOptions(*env.catalogs, s, data::DataOptions{}));
    o.data.reset();
    DLSIM_ASSIGN_OR_RETURN(const train::StepResult r, train::Simulate(o, *env.catalogs, nullptr));
    if (r.feasible) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo * 1024;
}

// The runs of a point.
struct PointRuns {
  SideRun base;   // DeepSpeed: one sequence per micro-batch, sharded over CP
  SideRun whole;  // a column: all of a DP rank's sequences in one micro-batch, each sharded over CP
  SideRun skrull;
  int64_t bucket_from_memory = 0;
};

// The paper's selective recomputation, or full recomputation where that does not fit our memory model.
Result<SideRun> RunSide(const ReproEnv& env, internal::JobSetup s, const data::DataOptions& d) {
  SideRun side;
  for (train::Recompute rc : {train::Recompute::kSelective, train::Recompute::kFull}) {
    s.recompute = side.recompute = rc;
    DLSIM_ASSIGN_OR_RETURN(side.run, internal::RunJob(*env.catalogs, s, d));
    if (side.run.feasible) break;
  }
  return side;
}

Result<PointRuns> RunPoint(const ReproEnv& env, const CsvTable& cdf, const Point& p) {
  const internal::JobSetup s = PointJob(p);
  data::DataOptions d;
  DLSIM_ASSIGN_OR_RETURN(d.lengths, internal::CdfLengths(cdf, p.dataset, s.seq_len));
  d.seed = kSeed;
  d.steps = kSteps;
  d.documents = p.dp * p.batch_size;
  PointRuns out;
  d.policy = "padding_free";
  DLSIM_ASSIGN_OR_RETURN(out.base, RunSide(env, s, d));
  internal::JobSetup whole = s;
  whole.micro_batch = p.batch_size;
  whole.global_batch = p.dp * p.batch_size;
  DLSIM_ASSIGN_OR_RETURN(out.whole, RunSide(env, whole, d));
  d.policy = "skrull";
  d.token_budget = p.bucket;
  DLSIM_ASSIGN_OR_RETURN(out.skrull, RunSide(env, s, d));
  DLSIM_ASSIGN_OR_RETURN(out.bucket_from_memory, BucketFromMemory(env, p));
  return out;
}

// base / skrull when both are feasible, else 0.
double FeasibleRatio(const internal::DataRun& base, const internal::DataRun& sk) {
  return base.feasible && sk.feasible ? internal::Ratio(base.mean_s, sk.mean_s) : 0.0;
}

nlohmann::ordered_json Row(const Point& p, const PointRuns& r, double paper) {
  const internal::DataRun &base = r.base.run, &sk = r.skrull.run;
  return {{"model", p.model},
          {"dataset", p.dataset},
          {"dp", p.dp},
          {"cp", p.cp},
          {"sequences", p.dp * p.batch_size},
          {"bucket", p.bucket},
          {"bucket_from_memory", r.bucket_from_memory},
          {"deepspeed_recompute", std::string(train::RecomputeName(r.base.recompute))},
          {"deepspeed_s", base.mean_s},
          {"deepspeed_straggler_s", base.straggler_s},
          {"deepspeed_micro_batches", base.micro_batches},
          {"skrull_recompute", std::string(train::RecomputeName(r.skrull.recompute))},
          {"skrull_s", sk.mean_s},
          {"skrull_straggler_s", sk.straggler_s},
          {"skrull_micro_batches", sk.micro_batches},
          {"ratio", FeasibleRatio(base, sk)},
          {"paper_ratio", paper},
          {"ratio_vs_one_micro_batch", FeasibleRatio(r.whole.run, sk)},
          {"note", base.feasible && sk.feasible ? ""
                   : base.feasible              ? sk.reason
                                                : base.reason}};
}

// The claim, the headline (the mean ratio over the feasible points) and the words around the rows.
ReproResult Describe(internal::Sweep& sweep) {
  ReproResult out;
  out.name = "skrull";
  out.claim = "Skrull: 3.76x on average (up to 7.54x) faster than DeepSpeed in real-world long-SFT";
  out.paper_ratio = 3.76;
  out.off_cause =
      "on the short-sequence sets (Wikipedia, LMSys) the baseline's 64 micro-batches each pay the per-layer "
      "launch floor (0.5B: 64 ms per micro-batch, all of its step) while Skrull packs them into one, so the "
      "ratio is the micro-batch count (points 2.5-5.3x the paper's); on ChatQA2 (long sequences) both points "
      "are within the band (0.82-0.83x). The paper does not state the baseline's micro-batching";
  out.our_ratio = sweep.ratios().Mean();
  out.operating_point =
      "the paper's six (model, dataset) points of Section 5 on 32 H100; the headline is their mean, as the "
      "paper's 3.76x";
  out.workload = fmt::format(
      "the paper's Section 5: Qwen2.5-0.5B and -7B on {} H100, ZeRO-2, selective recomputation, DP 4 x CP "
      "8 x 64 sequences (7B on ChatQA2: DP 2 x CP 16 x 40), BucketSize 26K / 13K tokens per GPU, the Table 1 "
      "length CDFs of Wikipedia, LMsysChat1M and ChatQA2, {} steps; ours = the mean ratio over the six "
      "points",
      kGpus, kSteps);
  out.baseline =
      "DeepSpeed ZeRO-2 with uniform context parallelism: each DP rank's sequences one per micro-batch "
      "(gradient accumulation), every sequence sharded over the CP group";
  out.notes =
      "The per-point paper ratios are Figure 3 as read by a secondary source; they average to the paper's "
      "stated 5.50x (0.5B) and 2.03x (7B). Column bucket_from_memory: the per-GPU token budget our memory "
      "model allows the layout (the paper derives its BucketSize from profiled memory). Column "
      "ratio_vs_one_micro_batch: against the other extreme of the "
      "unstated DeepSpeed micro-batch size, all of a DP rank's sequences in one micro-batch (0 = out of "
      "memory). Before issue 19 (a stand-in setup: Qwen2.5-7B tp 2, 4M tokens per step, synthetic SFT mixes, "
      "packed rows as the baseline): 1.11x mean. See docs/reproductions.md, Skrull.";
  out.details = sweep.TakeDetails();
  for (const auto& row : out.details) {
    if (row["paper_ratio"].get<double>() > 0)
      out.points.push_back(
          {fmt::format("{} {}", row["model"].get<std::string>(), row["dataset"].get<std::string>()),
           row["paper_ratio"].get<double>(), row["ratio"].get<double>(),
           "paper value from a secondary reading of Figure 3"});
  }
  return out;
}

class SkrullReproduction final : public Reproduction {
 public:
  // Every (model, dataset) point: the baseline and Skrull.
  Result<ReproResult> Run(const ReproEnv& env) const override {
    DLSIM_ASSIGN_OR_RETURN(const CsvTable cdf, internal::SkrullTableOneLengths());
    DLSIM_ASSIGN_OR_RETURN(const CsvTable paper,
                           ParseCsv(embedded::SkrullSpeedupsCsv(), "skrull_speedups.csv"));
    internal::Sweep sweep;
    for (const Point& p : kPoints) {
      DLSIM_ASSIGN_OR_RETURN(PointRuns r, RunPoint(env, cdf, p));
      sweep.Add(Row(p, r, PaperSpeedup(paper, p)), FeasibleRatio(r.base.run, r.skrull.run));
    }
    return Describe(sweep);
  }
};

}  // namespace

void RegisterSkrull(ReproRegistry& reg) {
  reg.RegisterBuiltin("skrull",
                      "Skrull (NeurIPS 2025): dynamic data scheduling for long SFT vs DeepSpeed, 3.76x avg",
                      [] { return std::make_unique<SkrullReproduction>(); });
}

}  // namespace dlsim::repro
