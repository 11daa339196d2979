// Mechanism tests of the reproduced systems: each checks, on a small workload, the mechanism
// its paper credits for the gain, and fails if the policy stops doing it. They use the
// machinery of src/repro (data_repro.h), the data policies and the serving simulator, not the
// full reproduction sweeps (tests/repro/data_repro_test.cc runs those).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "common/sanitizers.h"
#include "data_repro.h"
#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/serve/mig/mig_serving.h"
#include "dlsim/serve/setup.h"
#include "dlsim/train/simulate.h"

namespace dlsim::repro {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* const cat = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *cat;
}

// A skewed mix: a lognormal body (median 2K) and 5% of documents from a Pareto tail from 16K,
// so a few long documents carry most of the (quadratic) attention.
data::LengthSpec SkewedLengths(int64_t max_len) {
  data::LengthSpec l;
  l.distribution = "pareto_mix";
  l.median = 2000;
  l.sigma = 1.0;
  l.tail_fraction = 0.05;
  l.tail_min = 16384;
  l.tail_alpha = 1.2;
  l.max_len = max_len;
  return l;
}

std::vector<int64_t> DrawDocs(const data::LengthSpec& spec, int64_t tokens, uint64_t seed) {
  auto src = data::MakeLengthSource(spec);
  EXPECT_TRUE(src.ok());
  Rng rng = Rng(seed).Stream("data/lengths");
  return data::DrawDocuments(**src, rng, tokens, spec.max_len);
}

data::StepData Schedule(const std::string& policy, const std::vector<int64_t>& docs,
                        const data::DataShape& shape) {
  data::DataPolicyRegistry reg("data-policy");
  data::RegisterDataPolicies(reg);
  auto step = (*reg.Create(policy))->Schedule(docs, shape);
  EXPECT_TRUE(step.ok()) << policy << ": " << (step.ok() ? "" : step.error().message);
  return step.ok() ? *step : data::StepData{};
}

// Largest over smallest attention pairs of a data-parallel replica (all its micro-batches and
// CP ranks).
double ReplicaAttentionImbalance(const data::StepData& step) {
  std::vector<double> pairs;
  for (const auto& replica : step.dp) {
    double p = 0;
    for (const data::MicroBatch& mb : replica) p += data::TotalAttentionPairs(mb);
    pairs.push_back(p);
  }
  const auto [lo, hi] = std::minmax_element(pairs.begin(), pairs.end());
  return *lo > 0 ? *hi / *lo : 0.0;
}

// DistCA moves core-attention tasks between GPUs until each holds about the mean; WLB-LLM only
// places whole documents, so a replica that got a long document keeps its quadratic work.
TEST(DistCaMechanism, BalancesAttentionAcrossReplicas) {
  for (uint64_t seed : {1, 2, 3}) {
    const std::vector<int64_t> docs = DrawDocs(SkewedLengths(65536), 256 * 1024, seed);
    data::DataShape shape;
    shape.dp = 4;
    shape.cp = 2;
    shape.seq_len = 65536;
    shape.token_budget = 64 * 1024;  // 2 x the replica's share per GPU, as the reproduction
    shape.seed = seed;
    const double wlb = ReplicaAttentionImbalance(Schedule("wlb", docs, shape));
    const double dca = ReplicaAttentionImbalance(Schedule("distca", docs, shape));
    // Observed: wlb 2.65 / 1.73 / 3.67, distca 1.000 / 1.000 / 1.000.
    EXPECT_LE(dca, 1.0 + 2 * data::kDistcaTolerance) << "seed " << seed << ", wlb " << wlb;
    EXPECT_LT(dca, wlb) << "seed " << seed;
  }
}

internal::DataRun RunSplit(const std::string& policy, int dp, int cp) {
  constexpr int64_t kTokens = 64 * 1024;
  internal::JobSetup s;  // llama3-8b on dgx-h100
  s.gpus = 32;
  s.tp = 8;
  s.cp = cp;
  s.seq_len = static_cast<int>(kTokens / dp);
  s.global_batch = dp;
  data::DataOptions d;
  d.lengths = SkewedLengths(kTokens);
  d.policy = policy;
  d.token_budget = 2 * kTokens / (dp * cp);
  d.steps = 3;
  d.seed = 5;
  auto r = internal::RunJob(Cat(), s, d);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : internal::DataRun{};
}

// At the same dp x cp split and the same documents, balancing core attention never makes a
// step slower, and it is faster wherever there are replicas to balance (dp > 1).
// With DistCA's own samplers and step sizes our WLB-LLM steps match the authors' measured ones (geometric
// mean 0.99x over the 22 measured configurations), while our DistCA steps are slower than theirs
// (1.31x): the finding behind the verdict (docs/reproductions.md, "DistCA"). Either moving is news.
TEST(DistCaMechanism, BaselineStepsMatchTheAuthorsRunsAndDistcaStepsDoNot) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto r = (*reg.Create("distca"))->Run(ReproEnv{&Cat()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  double log_wlb = 0, log_dca = 0;
  int n = 0;
  for (const auto& row : r->details) {
    const double mw = row["measured_wlb_s"].get<double>(), md = row["measured_distca_s"].get<double>();
    if (mw <= 0) continue;
    log_wlb += std::log(row["wlb_s"].get<double>() / mw);
    log_dca += std::log(row["distca_s"].get<double>() / md);
    ++n;
  }
  ASSERT_EQ(n, 22);
  EXPECT_NEAR(std::exp(log_wlb / n), 1.0, 0.1);  // observed 0.99
  EXPECT_GT(std::exp(log_dca / n), 1.2);         // observed 1.31
  EXPECT_EQ(r->points.size(), 22u);
}

TEST(DistCaMechanism, StepTimeNoWorseThanWlbAtTheSameSplit) {
  for (auto [dp, cp] : {std::pair{4, 1}, std::pair{2, 2}, std::pair{1, 4}}) {
    const internal::DataRun wlb = RunSplit("wlb", dp, cp);
    const internal::DataRun dca = RunSplit("distca", dp, cp);
    ASSERT_TRUE(wlb.feasible && dca.feasible) << wlb.reason << dca.reason;
    // Observed (s): dp4 cp1 wlb 1.247 distca 0.805; dp2 cp2 0.726 / 0.583; dp1 cp4 0.528 both.
    EXPECT_LE(dca.mean_s, wlb.mean_s) << "dp " << dp << " cp " << cp;
    if (dp > 1) {
      EXPECT_LT(dca.mean_s, 0.9 * wlb.mean_s) << "dp " << dp << " cp " << cp;
    }
  }
}

struct MemoryRun {
  double activations_gib = 0;  // pipeline rank 0
  int64_t max_gpu_tokens = 0;  // most tokens one GPU holds in one micro-batch
};

// Documents all of length `doc_len`; chunkflow cuts them into chunks of `chunk` tokens, pack puts
// one per row of the document's length.
MemoryRun RunMemory(const std::string& policy, int64_t doc_len, int64_t chunk) {
  const int64_t row = policy == "chunkflow" ? chunk : doc_len;
  internal::JobSetup s;  // llama3-8b on dgx-h100
  s.tp = 8;
  s.seq_len = static_cast<int>(row);
  s.global_batch = static_cast<int>(256 * 1024 / row);
  data::DataOptions d;
  d.lengths.distribution = "fixed";
  d.lengths.value = static_cast<double>(doc_len);
  d.lengths.max_len = doc_len;  // 0 would truncate documents to the row (seq_len)
  d.policy = policy;
  d.chunk_size = policy == "chunkflow" ? chunk : 0;
  auto o = internal::MakeTrainOptions(Cat(), s, d);
  EXPECT_TRUE(o.ok()) << (o.ok() ? "" : o.error().message);
  auto r = train::Simulate(*o, Cat(), nullptr);
  EXPECT_TRUE(r.ok() && r->feasible && !r->memory.empty() && r->data) << policy << " " << doc_len;
  if (!r.ok() || r->memory.empty() || !r->data) return {};
  EXPECT_EQ(r->data->truncated, 0) << policy << " " << doc_len;
  data::DataShape shape;
  shape.seq_len = row;
  shape.max_len = doc_len;
  shape.chunk_size = d.chunk_size;
  MemoryRun m;
  m.activations_gib = r->memory[0].activations.ToGiB();
  for (const auto& replica : Schedule(policy, std::vector<int64_t>(4, doc_len), shape).dp) {
    for (const data::MicroBatch& mb : replica) m.max_gpu_tokens = std::max(m.max_gpu_tokens, mb.cp[0].tokens);
  }
  return m;
}

// K and V of one token on one GPU of tp 8, bf16, over all layers of llama3-8b, in GiB.
double KvGibPerToken() {
  const model::ModelSpec& m = *Cat().models.Find("llama3-8b").value();
  return 2.0 * std::max(1, m.kv_heads / 8) * m.head_dim() * 2 * m.layers / (1024.0 * 1024 * 1024);
}

// ChunkFlow keeps the activations of one chunk of a long document (K = 1) and recomputes the
// others, so its activation memory is the chunk's plus the document's prefix K/V state (with its
// gradients): it grows by 2 x K/V bytes per extra prefix token, while packing whole documents grows
// with the longest one at the full activation cost per token.
TEST(ChunkFlowMechanism, ActivationMemoryIsTheChunkPlusThePrefixKvState) {
  constexpr int64_t kChunk = 4096;
  const MemoryRun chunk16 = RunMemory("chunkflow", 16384, kChunk);
  const MemoryRun pack16 = RunMemory("pack", 16384, kChunk);
  for (int64_t len : {32768, 65536}) {
    const MemoryRun chunk = RunMemory("chunkflow", len, kChunk);
    const MemoryRun pack = RunMemory("pack", len, kChunk);
    const double growth = static_cast<double>(len) / 16384;
    const double state_gib = 2.0 * static_cast<double>(len - 16384) * KvGibPerToken();  // K/V + dK/dV
    // Observed (GiB): pack 9.52, 19.04, 38.07; chunkflow 2.38 + the prefix state.
    EXPECT_NEAR(chunk.activations_gib - chunk16.activations_gib, state_gib, 1e-6) << len;
    EXPECT_GT(pack.activations_gib, 0.9 * growth * pack16.activations_gib) << len;
    EXPECT_LT(chunk.activations_gib - chunk16.activations_gib,
              0.2 * (pack.activations_gib - pack16.activations_gib))
        << len;
    EXPECT_LE(chunk.max_gpu_tokens, kChunk) << len;
    EXPECT_EQ(pack.max_gpu_tokens, len);
  }
  EXPECT_LT(chunk16.activations_gib, pack16.activations_gib);
}

// Regression (issue 19): chunkflow's activations used to be exactly equal at 16K and 64K documents (2.38
// GiB both), the K/V state of the earlier chunks uncounted although a later chunk's attention needs it.
TEST(ChunkFlowMechanism, ActivationsCountTheEarlierChunksKvState) {
  constexpr int64_t kChunk = 4096;
  const double extra_gib = (65536 - 16384) * KvGibPerToken();  // ~0.75 GiB of K and V alone
  const MemoryRun short_docs = RunMemory("chunkflow", 16384, kChunk);
  const MemoryRun long_docs = RunMemory("chunkflow", 65536, kChunk);
  EXPECT_GT(long_docs.activations_gib, short_docs.activations_gib + 0.5 * extra_gib);
}

// Straggler gap of a long-tailed SFT mix at `cp`: 16 H100, Qwen2.5-7B tp 2, 32K context, 1M
// tokens per step; skrull gets the baseline's tokens per GPU (context / cp).
internal::DataRun RunSft(const std::string& policy, int cp) {
  constexpr int kContext = 32768;
  internal::JobSetup s;
  s.model = "qwen2.5-7b";
  s.gpus = 16;
  s.tp = 2;
  s.cp = cp;
  s.seq_len = kContext;
  s.global_batch = (1 << 20) / kContext;
  data::DataOptions d;
  d.lengths = {.distribution = "pareto_mix",
               .median = 700,
               .sigma = 0.8,
               .tail_fraction = 0.01,
               .tail_min = 8192,
               .tail_alpha = 1.5,
               .max_len = kContext};
  d.policy = policy;
  d.token_budget = policy == "skrull" ? kContext / cp : 0;
  d.steps = 4;
  d.seed = 9;
  auto r = internal::RunJob(Cat(), s, d);
  EXPECT_TRUE(r.ok() && r->feasible) << policy << (r.ok() ? r->reason : r.error().message);
  return r.ok() ? *r : internal::DataRun{};
}

// Skrull balances each micro-batch's workload over the DP replicas (and keeps short documents
// whole on one CP rank); DeepSpeed-style packing leaves the replica that drew the long documents
// behind, and the others wait at the gradient reduction.
TEST(SkrullMechanism, RemovesTheDataParallelStragglerGapOfPacking) {
  for (int cp : {2, 4}) {
    const internal::DataRun pack = RunSft("pack", cp);
    const internal::DataRun sk = RunSft("skrull", cp);
    // Observed (s): cp 2 pack 1.398 of 6.72, skrull 0.100; cp 4 pack 0.900 of 6.63, skrull 0.047.
    EXPECT_GT(pack.straggler_s, 0.1 * pack.mean_s) << "cp " << cp << ": the mix has a gap to remove";
    EXPECT_LT(sk.straggler_s, 0.25 * pack.straggler_s) << "cp " << cp;
  }
}

// The settings of repro_select_n.cc: model, GPU, PCIe GB/s, TPOT SLO (s).
struct ServeSetting {
  const char* model;
  const char* gpu;
  double pcie_gbps;
  double tpot_s;
};
constexpr ServeSetting kServeSettings[] = {
    {"llama2-13b", "a100-sxm4-40gb", 25, 0.1}, {"llama2-13b", "a100-sxm4-40gb", 12.5, 0.1},
    {"llama2-13b", "a100-sxm4-40gb", 25, 0.2}, {"llama2-13b", "v100-sxm2-32gb", 12, 0.2},
    {"llama2-7b", "t4-16gb", 12, 0.2},         {"llama2-7b", "a10-24gb", 25, 0.1},
};

serve::ServeOptions SelectNOptions(const ServeSetting& s, int min_interval, bool admission) {
  serve::ServeOptions o;
  o.name = "select-n";
  o.model = *Cat().models.Find(s.model).value();
  o.gpu = *Cat().hardware.FindGpu(s.gpu).value();
  o.workload.requests = 1500;
  o.workload.seed = 7;
  o.workload.prompt.max = 4096;
  o.workload.output.max = 1024;
  o.offload.mode = serve::OffloadMode::kSelectN;
  o.offload.pcie_gbps = s.pcie_gbps;
  o.offload.min_interval = min_interval;  // 0: Select-N's offline choice
  o.offload.slo_admission = admission;
  o.slo.tpot_s = s.tpot_s;
  return o;
}

struct SelectNRun {
  int interval = 0;     // the smallest interval the plan allows (0: nothing offloaded)
  double p99_tpot = 0;  // at the capacity (>= 90% SLO attainment) rate
};

SelectNRun RunSelectN(const serve::ServeEnvironment& env, const ServeSetting& s, int min_interval,
                      bool admission = true) {
  const serve::ServeOptions o = SelectNOptions(s, min_interval, admission);
  auto cost = serve::MakeCostModel(o, env);
  EXPECT_TRUE(cost.ok());
  auto plan = serve::PlanMemory(o, **cost);
  EXPECT_TRUE(plan.ok()) << s.gpu << ": " << (plan.ok() ? "" : plan.error().message);
  auto cap = serve::FindCapacity(o, **cost, env.schedulers, env.routers, {.target = 0.9});
  EXPECT_TRUE(cap.ok()) << s.gpu << ": " << (cap.ok() ? "" : cap.error().message);
  if (!plan.ok() || !cap.ok()) return {};
  return {plan->min_interval, cap->at_capacity.metrics.tpot_s.p99};
}

// Select-N picks the smallest offloading interval whose iteration meets the TPOT SLO offline;
// online it only offloads fewer layers. Every setting it admits keeps the p99 TPOT within the SLO
// at the highest rate meeting the attainment target.
TEST(SelectNMechanism, AdmittedIntervalKeepsP99TpotWithinTheSlo) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  auto env = serve::MakeServeEnvironment(Cat().compute, Cat().network);
  ASSERT_TRUE(env.ok());
  int admitted = 0;
  for (const ServeSetting& s : kServeSettings) {
    const SelectNRun r = RunSelectN(**env, s, 0);
    if (r.interval == 0) continue;
    ++admitted;
    // Observed p99 (s): 0.053, 0.041, 0.098 (a100), 0.130 (v100, SLO 0.2), 0.180 (t4, SLO 0.2),
    // 0.070 (a10). Admission at the current context instead of half-way through a median output let
    // the a10's p99 reach 0.107.
    EXPECT_LE(r.p99_tpot, s.tpot_s) << s.model << " on " << s.gpu << ", interval " << r.interval;
  }
  EXPECT_EQ(admitted, 6);  // all six settings offload some layers
}

// The check above can fail: an interval below the admitted one (every second layer offloaded)
// breaks the SLO at p99 where PCIe is slow against the GPU, unless the performance record's
// admission (which knows the forced interval) shrinks the batch until the stalls fit.
TEST(SelectNMechanism, IntervalBelowTheAdmittedOneBreaksTheSloWithoutAdmission) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  auto env = serve::MakeServeEnvironment(Cat().compute, Cat().network);
  ASSERT_TRUE(env.ok());
  // Observed p99 (s): v100 0.639 forced / 0.130 guarded (SLO 0.2), t4 0.466 / 0.185 (0.2). (The a10
  // at 25 GB/s, 0.093 forced, rarely needs to offload at all once the interval is 2.)
  for (const ServeSetting& s : {kServeSettings[3], kServeSettings[4]}) {
    const SelectNRun admitted = RunSelectN(**env, s, 0);
    const SelectNRun forced = RunSelectN(**env, s, 2, /*admission=*/false);
    const SelectNRun guarded = RunSelectN(**env, s, 2, /*admission=*/true);
    ASSERT_GT(admitted.interval, 2) << s.gpu;
    EXPECT_GT(forced.p99_tpot, s.tpot_s) << s.model << " on " << s.gpu;
    EXPECT_LE(guarded.p99_tpot, s.tpot_s) << s.model << " on " << s.gpu;
  }
}

// MIG-serving saves GPUs by putting several services on the instances of one GPU: three small
// services at 0.3 of a whole GPU each need 3 whole GPUs but fit 2 partitioned ones, at least one
// of which serves two services; one large service at whole-GPU multiples keeps its whole GPUs
// (108 SMs beat the 98 of a MIG-mode 7g).
TEST(MigServingMechanism, SharesGpusBetweenServicesOnlyWhereItSaves) {
  serve::DnnModelRegistry models("dnn-model");
  serve::RegisterDnnModels(models, Cat().models);
  serve::MigOptimizerRegistry reg("mig-optimizer");
  serve::RegisterMigOptimizers(reg);
  const hw::GpuSpec& a100 = *Cat().hardware.FindGpu("a100-sxm4-80gb").value();
  auto solve = [&](const serve::MigServingProblem& p, const char* name) {
    return (*reg.Create(name, serve::MigOptimizerOptions{}))->Optimize(p).value();
  };
  std::vector<serve::MigService> small = {{"resnet50", "resnet50", 1, Millis(30)},
                                          {"bert-base", "bert-base", 1, Millis(40)},
                                          {"dlrm", "dlrm-mlp", 1, Millis(10)}};
  auto unit = serve::MakeMigServingProblem(a100, small, models, Cat().compute).value();
  for (size_t m = 0; m < small.size(); ++m) small[m].demand_rps = 0.3 * unit.whole_gpu_throughput[m];
  const auto p = serve::MakeMigServingProblem(a100, small, models, Cat().compute).value();
  EXPECT_EQ(solve(p, "whole-gpu").gpus.size(), 3u);
  const serve::MigDeployment ga = solve(p, "ga");
  EXPECT_LE(ga.gpus.size(), 2u);
  bool shared = false;
  for (const serve::GpuConfig& g : ga.gpus) {
    std::set<int> distinct(g.service.begin(), g.service.end());
    distinct.erase(-1);
    shared = shared || distinct.size() >= 2;
  }
  EXPECT_TRUE(shared);
  std::vector<serve::MigService> large = {{"bert-large", "bert-large", 1, Millis(80)}};
  auto lunit = serve::MakeMigServingProblem(a100, large, models, Cat().compute).value();
  large[0].demand_rps = 4 * lunit.whole_gpu_throughput[0];
  const auto lp = serve::MakeMigServingProblem(a100, large, models, Cat().compute).value();
  const serve::MigDeployment lg = solve(lp, "greedy");
  EXPECT_EQ(lg.gpus.size(), 4u);
  for (const serve::GpuConfig& g : lg.gpus) EXPECT_EQ(g.partition, -1);
}

// The measured pass (MIGPerf's ResNet-50 batch latencies): under each SLO a small instance runs
// a smaller batch, so per compute slice it serves no more than the 7g instance, and MIG saves
// no GPU for the one service at any demand (the roofline's verdict too). The rows stay beside
// the headline.
TEST(MigServingMechanism, MeasuredSlicesScaleNoWorseThanLinearAndSaveNothingAlone) {
  DLSIM_SKIP_UNDER_SANITIZERS();  // the whole reproduction: 50 s under the sanitizers, 3.5 s in Release
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto r = (*reg.Create("mig-serving"))->Run(ReproEnv{&Cat()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  int measured = 0;
  for (const auto& row : r->details) {
    if (row["mix"].get<std::string>().find("MIGPerf") == std::string::npos) continue;
    ++measured;
    EXPECT_EQ(row["whole_gpus"].get<int>(), row["ga_gpus"].get<int>()) << row.dump();
    EXPECT_LE(row["greedy_gpus"].get<int>(), row["whole_gpus"].get<int>()) << row.dump();
  }
  EXPECT_EQ(measured, 12);
  EXPECT_NE(r->notes.find("1g.10gb 180 (batch 2)"), std::string::npos) << r->notes;  // 2 / 11.13 ms
  EXPECT_NE(r->notes.find("7g.80gb 2548 (batch 32)"), std::string::npos);            // 32 / 12.56 ms
  EXPECT_NEAR(r->our_ratio, 0.5, 1e-9);  // the headline: the roofline pass's largest saving
}

// ElasticBatch's two mechanisms: buckets cut the padding (fewer whole GPUs at high demand than
// one padded bucket), and MIG packs the buckets' instances (a GPU per bucket on whole GPUs, but
// all four on one partitioned GPU at low demand). Never more GPUs than the baseline.
TEST(ElasticBatchMechanism, BucketsCutPaddingAndMigPacksTheBuckets) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto r = (*reg.Create("elasticbatch"))->Run(ReproEnv{&Cat()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->details.size(), 3u);
  for (const auto& row : r->details) {
    EXPECT_LE(row["elasticbatch_gpus"].get<int>(), row["baseline_gpus"].get<int>()) << row.dump();
    EXPECT_LE(row["elasticbatch_gpus"].get<int>(), row["bucketed_whole_gpus"].get<int>()) << row.dump();
  }
  const auto& low = r->details[0];
  EXPECT_EQ(low["bucketed_whole_gpus"].get<int>(), 4);  // one whole GPU per bucket
  EXPECT_EQ(low["elasticbatch_gpus"].get<int>(), 1);
  const auto& high = r->details[2];
  EXPECT_LT(high["bucketed_whole_gpus"].get<int>(), high["baseline_gpus"].get<int>());
  // The learned configuration model: choosing from latencies predicted from 10% of the space costs
  // no GPU here and picks no (bucket, instance) whose true p99 breaks the SLO (observed: equal GPUs,
  // 0 violations, 20.7% held-out MAPE).
  for (const auto& row : r->details) {
    EXPECT_EQ(row["learned_gpus"].get<int>(), row["elasticbatch_gpus"].get<int>()) << row.dump();
    EXPECT_EQ(row["learned_slo_violations"].get<int>(), 0) << row.dump();
    EXPECT_TRUE(row["learned_meets_demand"].get<bool>()) << row.dump();
  }
  EXPECT_NE(r->notes.find("(10% profiled)"), std::string::npos) << r->notes;
}

}  // namespace
}  // namespace dlsim::repro
