// Diffusion transformers in the training step (issue 15) and DSV's sparse attention and context-parallel
// layouts: catalog parameter counts against the published checkpoints, a cross-attention DiT and an MMDiT
// trained through the step model, the ring layout policy against the default ring path, sparse attention at
// sparsity 0 (dense plus the predictor, exactly), the re-balanced assignment against every head-group x
// ring-shard split of a small instance (brute force), K/V bytes against sparsity, DSV's speedup against the
// sequence length, and the layout rules.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "common/train_fixture.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/model/dit.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/layout_check.h"
#include "dlsim/train/step_model.h"

namespace dlsim::train {
namespace {

class DitTrainTest : public testing::CatalogTrainTest {
 protected:
  // `name` on `gpus` H100s (DGX nodes), cp over them all, one sample of `seq` latent tokens per replica.
  TrainOptions Options(const std::string& name, int gpus, int cp, int seq) const {
    TrainOptions o;
    o.model = Model(name);
    o.hardware.gpu = "h100-sxm5-80gb";
    o.hardware.node = "dgx-h100";
    o.hardware.gpus = gpus;
    o.training.seq_len = seq;
    o.training.global_batch = gpus / cp;
    o.parallel.cp = cp;
    o.parallel.zero = 3;
    o.parallel.recompute = Recompute::kFull;
    return o;
  }
};

// Totals of the published safetensors (FLUX.1-dev, Wan2.1-T2V-14B and -1.3B); Step1X-Edit's DiT by its code:
// FLUX.1-dev without the guidance MLP, with the Qwen2.5-VL connector.
TEST_F(DitTrainTest, CatalogCountsMatchThePublishedCheckpoints) {
  EXPECT_EQ(Model("flux.1-dev").ParameterCount(), 11901408320.0);
  EXPECT_EQ(Model("wan2.1-t2v-14b").ParameterCount(), 14288491584.0);
  EXPECT_EQ(Model("wan2.1-t2v-1.3b").ParameterCount(), 1418996800.0);
  const model::ModelSpec step1x = Model("step1x-edit-dit");
  const double guidance = 256.0 * 3072 + 3072 + 3072.0 * 3072 + 3072;
  // Qwen2Connector: input Linear(3584, 4096), timestep and context MLPs, 2 refiner blocks, Linear(3584, 768)
  // and its scale.
  const double H = 4096, C = 3584;
  const double block =
      4 * H + (3 * H * H + 3 * H) + (H * H + H) + (4 * H * H + 4 * H) + (4 * H * H + H) + (2 * H * H + 2 * H);
  const double connector =
      (C * H + H) + (256 * H + H + H * H + H) + (C * H + H + H * H + H) + 2 * block + (C * 768 + 768) + 1;
  EXPECT_EQ(model::DitRefinerParameters(step1x), connector);
  EXPECT_EQ(connector, 536621825.0);
  EXPECT_EQ(step1x.ParameterCount(), 11901408320.0 - guidance + connector);
  // Wan's 720p clip of 81 frames is 75,600 latent tokens.
  EXPECT_EQ(model::LatentTokens(Model("wan-14b").dit, {.frames = 81, .height = 720, .width = 1280}), 75600);
}

TEST_F(DitTrainTest, CrossAttentionDitTrainsWithRingContextParallelism) {
  TrainOptions o = Options("wan2.1-t2v-1.3b", 8, 8, 32760);
  const StepResult r = Run(o);
  ASSERT_TRUE(r.feasible) << r.reason;
  EXPECT_GT(r.breakdown.compute_s, 0.5 * r.step_time_s);
  EXPECT_GT(r.mfu, 0.05);
  EXPECT_LT(r.mfu, 0.8);
  // Model FLOPs are 3 x the closed form of the sample.
  const double flops = 3 * model::DitForwardFlops(o.model, 32760, 512);
  EXPECT_NEAR(r.model_tflops_per_gpu * 1e12 * 8 * r.step_time_s / flops, 1.0, 1e-9);
  // Without context parallelism the same sample has no CP communication and is slower on one GPU.
  TrainOptions one = Options("wan2.1-t2v-1.3b", 8, 1, 32760);
  const StepResult r1 = Run(one);
  EXPECT_EQ(r1.breakdown.cp_comm_s, 0);
  EXPECT_GT(r1.step_time_s, r.step_time_s);
}

TEST_F(DitTrainTest, MmditSplitsDoubleAndSingleStreamBlocksOverThePipeline) {
  TrainOptions o = Options("flux.1-dev", 6, 1, 4096);  // 1024 x 1024 images
  o.parallel.pp = 3;                                   // 19 blocks per stage: double, single, single
  o.training.global_batch = 12;
  o.parallel.zero = 1;
  auto plan = MakeParallelPlan(o);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto owned = MakeStepContext(o, *catalogs_);
  ASSERT_TRUE(owned.ok());
  const ChunkCostModel costs(o, *plan, (*owned)->ctx);
  double params = 0;
  for (int r = 0; r < 3; ++r) params += costs.Get(r, 0).params;
  EXPECT_DOUBLE_EQ(params, o.model.ParameterCount());
  // With tp 2 the blocks split except their modulation; the embedding and final layer stay whole.
  TrainOptions t2 = o;
  t2.parallel.tp = 2;
  t2.hardware.gpus = 6;
  t2.training.global_batch = 6;
  auto plan2 = MakeParallelPlan(t2);
  ASSERT_TRUE(plan2.ok()) << plan2.error().message;
  const ChunkCostModel costs2(t2, *plan2, (*owned)->ctx);
  double params2 = 0, whole = model::DitEmbeddingParameters(o.model) + model::DitHeadParameters(o.model);
  for (int r = 0; r < 3; ++r) params2 += costs2.Get(r, 0).params;
  for (int i = 0; i < o.model.layers; ++i)
    whole += model::DitModulationParameters(o.model, model::DitBlockOf(o.model, i));
  EXPECT_NEAR(params2, (o.model.ParameterCount() - whole) / 2 + whole, 1.0);
  // A double-stream block runs twice the weights of a single-stream one on the same tokens.
  EXPECT_GT(costs.Get(0, 0).forward.compute, costs.Get(1, 0).forward.compute);
  const StepResult r = Run(o);
  EXPECT_TRUE(r.feasible) << r.reason;
}

TEST_F(DitTrainTest, RingLayoutPolicyEqualsTheDefaultRingPath) {
  for (const char* name : {"wan2.1-t2v-1.3b", "flux.1-dev"}) {
    TrainOptions o = Options(name, 16, 8, 16384);
    auto plan = MakeParallelPlan(o);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    auto owned = MakeStepContext(o, *catalogs_);
    ASSERT_TRUE(owned.ok());
    const StepContext& ctx = (*owned)->ctx;
    Result<CpAttentionPlan> ring = PlanCpAttention(o, *plan, ctx);
    ASSERT_TRUE(ring.ok()) << ring.error().message;
    const ChunkCostModel direct(o, *plan, ctx), policy(o, *plan, ctx, &*ring);
    for (bool fwd : {true, false}) {
      const TaskCost a = fwd ? direct.Get(0, 0).forward : direct.Get(0, 0).backward;
      const TaskCost b = fwd ? policy.Get(0, 0).forward : policy.Get(0, 0).backward;
      EXPECT_NEAR(b.compute / a.compute, 1.0, 1e-6) << name;
      EXPECT_NEAR(b.cp_comm.ToSeconds(), a.cp_comm.ToSeconds(), 1e-6 * a.Total().ToSeconds()) << name;
    }
  }
}

// A 8-rank group over 12 heads of a 65K-token sequence: the env of the pricing tests.
CpEnv SmallEnv(const StepContext& ctx, const SparsityOptions* sparsity) {
  CpEnv env;
  env.ctx = &ctx;
  env.cp = 8;
  env.seq = 65536;
  env.heads = 12;
  env.kv_heads = 12;
  env.head_dim = 128;
  env.hidden = 1536;
  env.sparsity = sparsity;
  return env;
}

TEST_F(DitTrainTest, SparseAttentionAtSparsityZeroIsDensePlusThePredictorExactly) {
  const TrainOptions o = Options("wan2.1-t2v-1.3b", 8, 8, 65536);
  auto owned = MakeStepContext(o, *catalogs_);
  ASSERT_TRUE(owned.ok());
  SparsityOptions at_zero;
  at_zero.progress = 0;  // stage 1: the ramp has not started, every density is 1
  const SparsityMap map = DrawSparsity(at_zero, 1, 12, 32);
  EXPECT_EQ(map.MeanSparsity(), 0);
  const AttentionWork w{12, 32, map.density};
  for (const CpAssignment& a : {StandardAssignment(12, 32, 1, 8), StandardAssignment(12, 32, 4, 2)}) {
    const CpLayerCost dense = PriceAssignment(w, a, SmallEnv((*owned)->ctx, nullptr));
    const CpLayerCost sparse = PriceAssignment(w, a, SmallEnv((*owned)->ctx, &at_zero));
    EXPECT_EQ(sparse.attn_fwd, dense.attn_fwd);
    EXPECT_EQ(sparse.attn_bwd, dense.attn_bwd);
    EXPECT_EQ(dense.predictor_fwd, Duration::Zero());
    EXPECT_GT(sparse.predictor_fwd, Duration::Zero());
    EXPECT_EQ(sparse.fwd_compute, sparse.attn_fwd + sparse.predictor_fwd);
    EXPECT_EQ(sparse.bwd_compute, dense.bwd_compute);
    EXPECT_EQ(sparse.kv_bytes, dense.kv_bytes);
  }
  // At 90% sparsity the kernels are faster than dense by about (1 - s) / kernel_efficiency.
  SparsityOptions sparse = at_zero;
  sparse.progress = 1;
  sparse.head_spread = 0;
  sparse.block_spread = 0;
  const AttentionWork w90{12, 32, DrawSparsity(sparse, 1, 12, 32).density};
  const CpAssignment ring = StandardAssignment(12, 32, 1, 8);
  const CpLayerCost d = PriceAssignment(w, ring, SmallEnv((*owned)->ctx, nullptr));
  const CpLayerCost s = PriceAssignment(w90, ring, SmallEnv((*owned)->ctx, &sparse));
  EXPECT_NEAR(s.attn_fwd / d.attn_fwd, 0.1 / 0.8, 0.01);
}

// The largest rank work of the best assignment on a u x r grid, by enumerating every head-to-group map and
// every equal split of each group's query blocks over the shards.
double BruteForceMaxWork(const AttentionWork& w, int u, int r) {
  double best = 1e300;
  std::vector<int> heads(w.heads, 0);
  const int per = w.blocks / r;
  // All splits of the blocks into r shards of `per` (as shard indices per block).
  std::vector<std::vector<int>> splits;
  std::vector<int> cur(w.blocks), room(r, per);
  std::function<void(int)> split = [&](int b) {
    if (b == w.blocks) return splits.push_back(cur);
    for (int s = 0; s < r; ++s)
      if (room[s] > 0) {
        --room[s];
        cur[b] = s;
        split(b + 1);
        ++room[s];
      }
  };
  split(0);
  for (int code = 0;; ++code) {
    int c = code;
    for (int h = 0; h < w.heads; ++h, c /= u) heads[h] = c % u;
    if (c > 0) break;
    // Each group's blocks split independently: the best split per group minimises that group's max.
    double worst = 0;
    for (int g = 0; g < u; ++g) {
      double group_best = 1e300;
      for (const std::vector<int>& sp : splits) {
        std::vector<double> load(r, 0.0);
        for (int h = 0; h < w.heads; ++h)
          if (heads[h] == g)
            for (int b = 0; b < w.blocks; ++b) load[sp[b]] += w.At(h, b);
        group_best = std::min(group_best, *std::max_element(load.begin(), load.end()));
      }
      worst = std::max(worst, group_best);
    }
    best = std::min(best, worst);
  }
  return best;
}

TEST_F(DitTrainTest, RebalancedAssignmentNeverWorseThanPureLayoutsBruteForce) {
  SparsityOptions o;
  o.head_spread = 0.3;  // strongly heterogeneous heads and blocks
  o.block_spread = 0.5;
  o.target = 0.6;
  const int heads = 6, blocks = 4, cp = 4;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    o.seed = seed;
    const AttentionWork w{heads, blocks, DrawSparsity(o, 1, heads, blocks).density};
    const double mean = w.Total() / cp;
    const double ring = StandardAssignment(heads, blocks, 1, cp).Balance(w);
    const double ulysses = StandardAssignment(heads, blocks, cp, 1).Balance(w);
    double best = 1e300;
    for (int u : {1, 2, 4}) {
      const CpAssignment balanced = BalancedAssignment(w, u, cp / u);
      const double b = balanced.Balance(w);
      EXPECT_LE(b, StandardAssignment(heads, blocks, u, cp / u).Balance(w) + 1e-12) << seed;
      EXPECT_GE(b * mean, BruteForceMaxWork(w, u, cp / u) - 1e-9) << seed;  // never better than optimal
      EXPECT_LE(b * mean, 1.2 * BruteForceMaxWork(w, u, cp / u)) << seed;   // greedy within 20%
      best = std::min(best, b);
    }
    EXPECT_LE(best, std::min(ring, ulysses) + 1e-12) << seed;
  }
}

TEST_F(DitTrainTest, ExchangedKvBytesShrinkWithSparsity) {
  TrainOptions o = Options("wan2.1-t2v-1.3b", 8, 8, 65536);
  auto plan = MakeParallelPlan(o);
  ASSERT_TRUE(plan.ok());
  auto owned = MakeStepContext(o, *catalogs_);
  ASSERT_TRUE(owned.ok());
  double previous = 0;
  for (double target : {0.0, 0.5, 0.8, 0.9, 0.95}) {
    SparsityOptions s;
    s.target = target;
    s.head_spread = 0.02;
    o.sparsity = s;
    o.parallel.cp_layout = "ring";
    Result<CpAttentionPlan> p = PlanCpAttention(o, *plan, (*owned)->ctx);
    ASSERT_TRUE(p.ok()) << p.error().message;
    double kv = 0;
    for (const CpLayerCost& l : p->layers) kv += l.kv_bytes.value();
    if (target > 0.5) {
      EXPECT_LT(kv, previous) << target;
    }
    previous = kv;
  }
}

TEST_F(DitTrainTest, DsvSpeedupGrowsWithSequenceLength) {
  double last_speedup = 0, last_share = 0;
  for (int seq : {16384, 65536, 131072}) {
    TrainOptions dense = Options("wan2.1-t2v-1.3b", 16, 16, seq);
    dense.parallel.cp_layout = "hybrid";
    TrainOptions dsv = dense;
    dsv.parallel.cp_layout = "dsv";
    dsv.sparsity = SparsityOptions{};
    const StepResult a = Run(dense), b = Run(dsv);
    ASSERT_TRUE(a.feasible && b.feasible) << a.reason << b.reason;
    ASSERT_TRUE(a.cp_attention.has_value());
    const double speedup = a.step_time_s / b.step_time_s;
    EXPECT_GT(speedup, last_speedup) << seq;
    EXPECT_GT(a.cp_attention->attention_share, last_share) << seq;
    last_speedup = speedup;
    last_share = a.cp_attention->attention_share;
  }
  EXPECT_GT(last_speedup, 1.5);
}

TEST_F(DitTrainTest, LayoutRules) {
  TrainOptions o = Options("wan2.1-t2v-1.3b", 8, 8, 32768);  // 12 heads
  o.parallel.cp_layout = "ulysses";
  std::vector<LayoutIssue> issues = CheckLayout(o);
  ASSERT_FALSE(issues.empty());
  EXPECT_EQ(issues.front().key, "parallel.cp");
  EXPECT_NE(issues.front().message.find("12 heads"), std::string::npos);
  o.parallel.cp_layout = "hybrid";
  o.parallel.cp_ulysses = 8;
  ASSERT_FALSE(CheckLayout(o).empty());
  EXPECT_EQ(CheckLayout(o).front().key, "parallel.cp_ulysses");
  o.parallel.cp_ulysses = 4;
  EXPECT_TRUE(CheckLayout(o).empty());
  TrainOptions llm = o;
  llm.model = Model("llama3-8b");
  llm.training.seq_len = 32768;
  llm.sparsity = SparsityOptions{};
  ASSERT_FALSE(CheckLayout(llm).empty());
  EXPECT_NE(CheckLayout(llm).front().message.find("non-causal"), std::string::npos);
  TrainOptions dense = o;  // wan2.1-t2v-1.3b has 30 layers: 0..29
  dense.sparsity = SparsityOptions{};
  dense.sparsity->dense_layers = {29};
  EXPECT_TRUE(CheckLayout(dense).empty());
  dense.sparsity->dense_layers = {30};
  ASSERT_FALSE(CheckLayout(dense).empty());
  EXPECT_EQ(CheckLayout(dense).front().key, "sparsity.dense_layers");
  EXPECT_NE(CheckLayout(dense).front().message.find("0..29"), std::string::npos);
  o.training.seq_len = 32764;  // not divisible by cp 8
  EXPECT_EQ(CheckLayout(o).front().key, "parallel.cp");
}

TEST_F(DitTrainTest, DenseLayersDrawNoSparsityAndLeaveTheOthersAsDrawn) {
  SparsityOptions o;
  o.target = 0.9;
  const SparsityMap all = DrawSparsity(o, 4, 8, 16);
  o.dense_layers = {1, 3};
  const SparsityMap some = DrawSparsity(o, 4, 8, 16);
  for (int l = 0; l < 4; ++l) {
    for (int h = 0; h < 8; ++h) {
      for (int b = 0; b < 16; ++b) {
        if (l == 1 || l == 3)
          EXPECT_EQ(some.At(l, h, b), 1.0);
        else
          EXPECT_EQ(some.At(l, h, b), all.At(l, h, b));  // each layer's own random stream
      }
    }
  }
  EXPECT_NEAR(some.MeanSparsity(), all.MeanSparsity() / 2, 0.02);
}

// Layout rules about a key outside parallel: were reported under parallel: with "not given: the default"
// (issue 35).
TEST_F(DitTrainTest, LayoutRulesPointAtTheirOwnSection) {
  auto error = [&](const std::string& text) {
    auto o = io::ParseTrainScenario(text, "s.yaml", catalogs_->hardware, catalogs_->models);
    return o.ok() ? std::string("ok") : o.error().message;
  };
  const std::string dit = error("model:\n  name: wan2.1-t2v-1.3b\n  experts: 8\n  top_k: 2\n");
  EXPECT_NE(dit.find("s.yaml:3:12: model.experts: a diffusion transformer with experts"), std::string::npos)
      << dit;
  const std::string dense = error(
      "model: {name: wan2.1-t2v-1.3b}\nhardware: {node: dgx-h100, gpus: 8}\ntraining: {seq_len: 4096}\n"
      "parallel: {cp: 2, cp_layout: dsv}\nsparsity: {dense_layers: [30]}\n");
  EXPECT_NE(dense.find("sparsity.dense_layers: layer 30 is not a layer of wan2.1-t2v-1.3b (0..29)"),
            std::string::npos)
      << dense;
}

TEST_F(DitTrainTest, ScenarioKeys) {
  auto parse = [&](const std::string& text) {
    return io::ParseTrainScenario(text, "dit.yaml", catalogs_->hardware, catalogs_->models);
  };
  const std::string head = "model: {name: wan-1.3b}\nhardware: {node: dgx-h100, gpus: 8}\n";
  Result<TrainOptions> o = parse(
      head +
      "training: {video: {frames: 81, height: 480, width: 832}, global_batch: 1}\n"
      "parallel: {cp: 8, cp_layout: dsv}\nsparsity: {target: 0.8, progress: 0.5, dense_layers: [0, 29]}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->training.seq_len, 21 * 30 * 52);  // the clip's latent tokens
  EXPECT_EQ(o->parallel.cp_layout, "dsv");
  ASSERT_TRUE(o->sparsity.has_value());
  EXPECT_DOUBLE_EQ(o->sparsity->target, 0.8);
  EXPECT_DOUBLE_EQ(o->sparsity->progress, 0.5);
  // What `dlsim plan --best` writes reads back the same (the clip as its seq_len).
  Result<TrainOptions> again = parse(io::FormatTrainScenarioYaml(*o, "round trip"));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->training.seq_len, o->training.seq_len);
  EXPECT_EQ(again->parallel.cp_layout, "dsv");
  EXPECT_EQ(again->sparsity->target, o->sparsity->target);
  EXPECT_EQ(again->sparsity->seed, o->sparsity->seed);
  EXPECT_EQ(again->sparsity->dense_layers, (std::vector<int>{0, 29}));
  EXPECT_EQ(again->model.ParameterCount(), o->model.ParameterCount());
  for (const char* name : {"flux.1-dev", "step1x-edit-dit"}) {
    TrainOptions flux = Options(name, 8, 1, 4096);
    flux.parallel.dp = DataParallelSize(flux);  // as a parsed scenario holds it
    Result<TrainOptions> back = parse(io::FormatTrainScenarioYaml(flux, ""));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->model.ParameterCount(), flux.model.ParameterCount()) << name;
  }
  // A clip and a seq_len together, a clip for a language model, an unknown layout, a bad sparsity.
  const struct {
    std::string text, expect;
  } bad[] = {
      {head + "training: {seq_len: 4096, video: {height: 480, width: 832}}\n", "not both"},
      {"model: {name: llama3-8b}\ntraining: {video: {height: 480, width: 832}}\n",
       "needs a diffusion transformer"},
      {head + "training: {seq_len: 4096}\nparallel: {cp_layout: ulysess}\n", "did you mean 'ulysses'"},
      {head + "training: {seq_len: 4096}\nsparsity: {target: 1.5}\n", "sparsity.target"},
  };
  for (const auto& b : bad) {
    Result<TrainOptions> r = parse(b.text);
    ASSERT_FALSE(r.ok()) << b.text;
    EXPECT_NE(r.error().message.find(b.expect), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace dlsim::train
