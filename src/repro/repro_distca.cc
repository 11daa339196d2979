// DistCA (core attention disaggregation, arXiv 2510.18121) vs WLB-LLM.
//
// Llama-8B (the llama3-8b shape of DeepSeek-R1-Distill-Llama-8B) and CodeLlama-34B on H200 nodes, TP 8,
// at the 12 4D configurations of DistCA's artifact (GPUs, NUM_TOKENS, bs x mb; steps of 2 x bs x mb packed
// batches of NUM_TOKENS tokens as its scripts draw them), documents from the two DistCA length files
// (data/lengths/, embedded) drawn as DistCA's samplers draw them (Lengths below). WLB-LLM (`wlb`) packs
// documents with its variable-length packing (tokens + attention per micro-batch), each document sharded over
// CP with K/V all-gathered on the compute stream (its per-document CP code), and keeps its best dp x cp x pp
// split, as the paper lets it. DistCA (`distca`) splits documents at token level for the linear layers (equal
// tokens per GPU) and moves core-attention tasks to balance all GPUs; it needs no context parallelism (the
// attention servers replace it), so it runs cp 1 and keeps its best dp x pp split. Points: the authors'
// interim measurements (data/repro/distca_interim_speedups.csv). Choices: docs/reproductions.md, "DistCA".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "data_repro.h"
#include "dlsim/core/csv.h"
#include "dlsim/data/length_source.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::embedded {
std::string_view DistcaWlbllmLengthsJson();   // data/lengths/distca_wlbllm_hist.json
std::string_view DistcaProlongLengthsJson();  // data/lengths/distca_prolong_hist.json
std::string_view DistcaInterimSpeedupsCsv();  // data/repro/distca_interim_speedups.csv
}  // namespace dlsim::embedded

namespace dlsim::repro {
namespace {

struct ModelCase {
  const char* name;
  const char* artifact;                // its name in DistCA's result tables
  const char* catalog;                 // the catalog entry it starts from
  void (*reshape)(model::ModelSpec&);  // shape overrides, or null
};
// CodeLlama-34B (Hugging Face config): 48 layers, hidden 8192, 64 heads, 8 KV heads.
void CodeLlama34b(model::ModelSpec& m) {
  m.layers = 48;
  m.hidden = 8192;
  m.heads = 64;
  m.kv_heads = 8;
  m.ffn_hidden = 22016;
  m.vocab = 32000;
  m.max_seq_len = 16384;
}
constexpr ModelCase kLlama8b{"llama-8b", "8b", "llama3-8b", nullptr},
    kCodeLlama34b{"codellama-34b", "34b", "llama2-70b", CodeLlama34b};
constexpr int kTp = 8;
constexpr int kPps[] = {1, 2, 4};  // pipeline depths each system may choose
constexpr int kSteps = 6;
constexpr uint64_t kSeed = 35;

// One configuration of DistCA's 4D sweeps (hao-ai-lab/DistCA @ 2afd219 and its history: a row `nodes bs mb
// NUM_TOKENS`; the 8B grid of benchmarks/_250920_test_pp, the 34B rows of _250923_test_pp_34b). A step
// (tests/test_wlb_e2e.py) draws 2 x bs x mb packed batches of NUM_TOKENS tokens and the planner spreads them
// over dp x mb micro-batches (mb per DP replica); documents are stretched by ELONGATE_FACTOR = NUM_TOKENS /
// 65536 and truncated at NUM_TOKENS. Where a sweep gives only bs x mb, mb is the larger factor.
struct Config {
  const ModelCase* model;
  int gpus;
  int64_t num_tokens;
  int bs, mb;
};
constexpr int64_t kK = 1024;
// The 12 configurations of the artifact's interim 4D runs (data/repro/distca_interim_speedups.csv).
constexpr Config kConfigs[] = {
    {&kLlama8b, 64, 128 * kK, 1, 8},       {&kLlama8b, 64, 256 * kK, 1, 4},
    {&kLlama8b, 128, 128 * kK, 2, 8},      {&kLlama8b, 128, 256 * kK, 1, 8},
    {&kLlama8b, 128, 512 * kK, 1, 8},      {&kLlama8b, 256, 128 * kK, 2, 8},
    {&kLlama8b, 256, 256 * kK, 1, 8},      {&kLlama8b, 256, 512 * kK, 1, 8},
    {&kCodeLlama34b, 128, 128 * kK, 1, 4}, {&kCodeLlama34b, 256, 128 * kK, 1, 8},
    {&kCodeLlama34b, 256, 256 * kK, 1, 4}, {&kCodeLlama34b, 256, 512 * kK, 1, 2},
};

// One point of the sweep: a configuration on one length file.
struct Point {
  const Config* config;
  const char* lengths;  // "wlbllm" or "prolong"
  const ModelCase* model() const { return config->model; }
  int64_t StepTokens() const {
    return 2 * static_cast<int64_t>(config->bs) * config->mb * config->num_tokens;
  }
};

using Best = internal::FastestRun<std::string>;  // config: "dpXcpYppZ"

// DistCA's samplers (distca/simulator/optimizers/samples.py, with tests/test_wlb_e2e.sh's defaults
// UP_SAMPLE_FACTOR 4, FILTER_THRESHOLD 65536, FILTER_RATIO 0.5, and the sweeps' "prolong 0.3"):
constexpr double kLongDoc = 65536;     // documents at least this long (before stretching) are "long"
constexpr double kLongUpsample = 4;    // each long document appears 4 times
constexpr double kShortKept = 0.5;     // half of the shorter documents are kept
constexpr double kProlongFixed = 0.3;  // prolong: share of long documents set to 64K x ELONGATE_FACTOR

// A document longer than a packed batch continues in the next one (batch_documents): pieces of
// `n` tokens and the remainder, per histogram value.
void SplitAt(data::LengthSpec& spec, double n) {
  std::vector<double> values, weights;
  for (size_t i = 0; i < spec.values.size(); ++i) {
    const double v = spec.values[i], w = spec.weights[i], pieces = std::floor(v / n), rest = v - pieces * n;
    if (pieces > 0) values.push_back(n), weights.push_back(w * pieces);
    if (rest >= 1) values.push_back(rest), weights.push_back(w);
  }
  spec.values = std::move(values);
  spec.weights = std::move(weights);
}

// wlbllm: long documents x4, half the short ones, all stretched by ELONGATE_FACTOR = NUM_TOKENS /
// 65536. prolong: the sampler puts the long documents (x4) first and the runs' 3-10 steps consume
// no others; 30% of them become 64K x ELONGATE_FACTOR tokens, the rest keep their length.
Result<data::LengthSpec> Lengths(const std::string& which, int64_t tokens) {
  const bool wlb = which == "wlbllm";
  DLSIM_ASSIGN_OR_RETURN(
      data::LengthSpec spec,
      data::ParseLengthFile(wlb ? embedded::DistcaWlbllmLengthsJson() : embedded::DistcaProlongLengthsJson(),
                            wlb ? "distca_wlbllm_hist.json" : "distca_prolong_hist.json", ""));
  const double elongate = std::max(1.0, std::floor(static_cast<double>(tokens) / 65536.0));
  double long_weight = 0;
  for (size_t i = 0; i < spec.values.size(); ++i) {
    const bool is_long = spec.values[i] >= kLongDoc;
    spec.weights[i] *= is_long ? kLongUpsample : (wlb ? kShortKept : 0.0);
    if (is_long) long_weight += spec.weights[i];
    if (wlb) spec.values[i] *= elongate;
  }
  if (!wlb) {
    for (double& w : spec.weights) w *= 1 - kProlongFixed;
    spec.values.push_back(kLongDoc * elongate);
    spec.weights.push_back(kProlongFixed * long_weight);
  }
  SplitAt(spec, static_cast<double>(tokens));
  spec.max_len = tokens;
  return spec;
}

// A split of the point's TP groups into data-, context- and pipeline-parallel ranks.
struct Split {
  int dp, cp, pp;
};

// The job of point `p` on split `x`: one document batch per step, pp nominal micro-batches per replica.
internal::JobSetup SplitJob(const Point& p, const Split& x) {
  internal::JobSetup s;
  s.model = p.model()->catalog;
  if (p.model()->reshape) s.reshape = p.model()->reshape;
  s.node = "dgx-h200";
  s.gpus = p.config->gpus;
  s.tp = kTp;
  s.cp = x.cp;
  s.pp = x.pp;
  // dp x mb micro-batches of the step's tokens, one row each.
  s.global_batch = x.dp * p.config->mb;
  s.seq_len = static_cast<int>(p.StepTokens() / s.global_batch);
  return s;
}

data::DataOptions SplitData(const Point& p, const data::LengthSpec& lengths, const std::string& policy,
                            const Split& x) {
  data::DataOptions d;
  d.lengths = lengths;
  d.policy = policy;
  // Micro-batch capacity Lmax = 2 x the micro-batch's share of the step (the WLB-LLM packing
  // heuristic in the DistCA repository uses Lmax = 2 x the context), i.e. per GPU 2 x step tokens /
  // (dp x mb x cp). Both systems get the same capacity.
  d.token_budget =
      std::max<int64_t>(1, 2 * p.StepTokens() / (static_cast<int64_t>(x.dp) * p.config->mb * x.cp));
  d.seed = kSeed;
  d.steps = kSteps;
  return d;
}

// Runs every split of `gpus / tp` ranks open to `policy` (distca: cp 1) and keeps the fastest feasible;
// counts the feasible splits in `feasible`.
Result<Best> BestSplit(const ReproEnv& env, const Point& p, const data::LengthSpec& lengths,
                       const std::string& policy, int& feasible) {
  Best best;
  const int ranks = p.config->gpus / kTp;
  for (int pp : kPps) {
    for (int cp = 1; cp * pp <= ranks; cp *= 2) {
      if (policy == "distca" && cp > 1) break;
      const Split x{ranks / (cp * pp), cp, pp};
      const std::string name = fmt::format("dp{}cp{}pp{}", x.dp, x.cp, x.pp);
      internal::JobSetup job = SplitJob(p, x);
      // WLB-LLM's per-document CP all-gathers K/V on the compute stream (Ash-Zheng/WLB-LLM-CP
      // per_doc_cp_attn.py; DistCA's baseline runs that code with cp_stream = the current stream).
      if (policy == "wlb") job.cp_comm = train::CpComm::kAllGather;
      auto o = internal::MakeTrainOptions(*env.catalogs, job, SplitData(p, lengths, policy, x));
      if (!o.ok()) {
        if (o.error().code == ErrorCode::kInfeasible) continue;  // e.g. the layers do not divide over pp
        return o.error();
      }
      DLSIM_ASSIGN_OR_RETURN(internal::DataRun r, internal::RunDataJob(*o, *env.catalogs));
      feasible += r.feasible;
      best.Keep(r, name);
    }
  }
  return best;
}

// The authors' interim measurement of point `p`: both iteration times (s) and the speed-up of DistCA
// over WLB-LLM; all 0 when the tables have none.
struct Interim {
  double wlb_s = 0, distca_s = 0, speedup = 0;
};
Interim FindInterim(const CsvTable& t, const Point& p) {
  for (size_t i = 0; i < t.rows.size(); ++i) {
    auto lengths = t.Text(i, "lengths"), model = t.Text(i, "model");
    auto nodes = t.Number(i, "nodes"), tokens = t.Number(i, "num_tokens"), x = t.Number(i, "speedup");
    auto wlb = t.Number(i, "wlb_ms"), dca = t.Number(i, "distca_ms");
    if (lengths.ok() && model.ok() && nodes.ok() && tokens.ok() && x.ok() && wlb.ok() && dca.ok() &&
        *lengths == p.lengths && *model == p.model()->artifact && *nodes * kTp == p.config->gpus &&
        *tokens == p.config->num_tokens)
      return {*wlb / 1000, *dca / 1000, *x};
  }
  return {};
}

// Both systems at their best split: one detail row, with every split's time.
Status RunPoint(const ReproEnv& env, const Point& p, const data::LengthSpec& lengths, const Interim& measured,
                internal::Sweep& sweep) {
  int wlb_splits = 0, dca_splits = 0;
  DLSIM_ASSIGN_OR_RETURN(Best wlb, BestSplit(env, p, lengths, "wlb", wlb_splits));
  DLSIM_ASSIGN_OR_RETURN(Best dca, BestSplit(env, p, lengths, "distca", dca_splits));
  const double ratio = internal::Ratio(wlb.run.mean_s, dca.run.mean_s);
  nlohmann::ordered_json row = {{"model", p.model()->name},
                                {"lengths", p.lengths},
                                {"num_tokens", p.config->num_tokens},
                                {"bs", p.config->bs},
                                {"mb", p.config->mb},
                                {"gpus", p.config->gpus},
                                {"wlb_s", wlb.run.mean_s},
                                {"wlb_split", wlb.config},
                                {"wlb_straggler_s", wlb.run.straggler_s},
                                {"wlb_feasible_splits", wlb_splits},
                                {"distca_s", dca.run.mean_s},
                                {"distca_split", dca.config},
                                {"distca_straggler_s", dca.run.straggler_s},
                                {"distca_feasible_splits", dca_splits},
                                {"ratio", ratio},
                                {"measured_wlb_s", measured.wlb_s},
                                {"measured_distca_s", measured.distca_s}};
  sweep.Add(std::move(row), ratio);
  return Status::Ok();
}

// The claim, the headline (the largest ratio) and the words around the sweep's rows.
ReproResult Describe(internal::Sweep& sweep) {
  ReproResult out;
  out.name = "distca";
  out.claim =
      "core attention disaggregation: up to 1.35x training "
      "throughput vs WLB-LLM (Llama-8B, "
      "CodeLlama-34B, 128K-512K tokens per batch, up to 512 H200)";
  out.paper_ratio = 1.35;
  out.operating_point =
      "the paper's 4D runs as DistCA's artifact defines them: Llama-8B on 64/128/256 H200 and CodeLlama-34B "
      "on "
      "128/256, NUM_TOKENS 128K-512K, 2 x bs x mb packed batches per step as its scripts draw them, both "
      "length "
      "files (the 12 configurations of its interim result tables); the headline is the largest ratio over "
      "them, "
      "the statistic of the paper's 'up to 1.35x'";
  out.off_cause =
      "with DistCA's own samplers and steps our WLB-LLM steps match the authors' measured ones (0.99x, "
      "geometric mean) but our DistCA steps are 1.31x theirs: both are attention-bound at the same per-GPU "
      "attention work in our model, so what makes their DistCA 1.1-1.6x faster is not priced (WLB-LLM's "
      "imbalance or CP overheads beyond ours, or faster attention-server kernels)";
  out.our_ratio = sweep.ratios().max;
  out.workload = fmt::format(
      "Llama-8B and CodeLlama-34B, H200 nodes, TP 8, the artifact's 12 (GPUs, NUM_TOKENS, bs x mb) "
      "configurations, lengths drawn as DistCA's samplers draw them (long documents x4, ProLong's long "
      "documents only, 30% of them 64K x ELONGATE_FACTOR; split at NUM_TOKENS), {} steps; "
      "ours = the largest ratio over the {} points (mean {:.3f})",
      kSteps, sweep.rows(), sweep.ratios().Mean());
  out.baseline =
      "WLB-LLM (policy wlb: workload-balanced variable-length packing, per-document CP sharding with K/V "
      "all-gathered on the compute stream as its code does, micro-batches of up to 2x their share), its best "
      "dp x cp x pp split; DistCA takes its best dp x pp split at cp 1";
  out.notes =
      "Each system picks its fastest feasible split (columns POLICY_split, POLICY_feasible_splits). "
      "measured_*_s: the authors' interim iteration times (0: not measured). Points: "
      "the authors' interim measurements of the same configurations (hao-ai-lab/DistCA @ 031ba42), not the "
      "paper's final figure. Before issue 33 (WLB-LLM's CP ring hidden behind attention, steps of NUM_TOKENS "
      "tokens, 24 points of our own, lengths from the bare histograms): up to 1.03x. Before issue 19 "
      "(document-level placement, DistCA on "
      "WLB-LLM's dp x cp sweep, 64/128 GPUs, gradients "
      "reduced over dp only, attention-server traffic one way and hidden behind half the GEMMs): up to "
      "1.05x, mean 1.006x. See "
      "docs/reproductions.md, DistCA.";
  out.details = sweep.TakeDetails();
  return out;
}

class DistCAReproduction final : public Reproduction {
 public:
  // Every (model, length file, tokens, GPUs) point, both systems at their best split.
  Result<ReproResult> Run(const ReproEnv& env) const override {
    internal::Sweep sweep;
    DLSIM_ASSIGN_OR_RETURN(CsvTable interim,
                           ParseCsv(embedded::DistcaInterimSpeedupsCsv(), "distca_interim_speedups.csv"));
    std::vector<ReproPoint> points;
    for (const char* file : {"wlbllm", "prolong"})
      for (const Config& c : kConfigs) {
        DLSIM_ASSIGN_OR_RETURN(data::LengthSpec lengths, Lengths(file, c.num_tokens));
        const Point p{&c, file};
        const Interim measured = FindInterim(interim, p);
        DLSIM_RETURN_IF_ERROR(RunPoint(env, p, lengths, measured, sweep));
        if (measured.speedup > 0)
          points.push_back({fmt::format("{} {} {} GPUs {}K x {}", file, c.model->artifact, c.gpus,
                                        c.num_tokens / kK, c.bs * c.mb),
                            measured.speedup, sweep.ratio(sweep.ratios().points - 1), "interim run"});
      }
    ReproResult out = Describe(sweep);
    out.points = std::move(points);
    return out;
  }
};

}  // namespace

void RegisterDistCA(ReproRegistry& reg) {
  reg.RegisterBuiltin("distca",
                      "DistCA (arXiv 2510.18121): core-attention disaggregation "
                      "vs WLB-LLM, up to 1.35x",
                      [] { return std::make_unique<DistCAReproduction>(); });
}

}  // namespace dlsim::repro
