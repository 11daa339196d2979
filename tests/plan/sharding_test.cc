// TAPAS: the exact sharding search, subgraph folding, Alpa's ILP formulation, and the Megatron check
// against train.
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <memory>
#include <optional>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/plan/sharding/sharding_ilp.h"
#include "dlsim/plan/sharding/subgraph_folding.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/node_defaults.h"
#include "dlsim/train/simulate.h"

namespace dlsim::plan {
namespace {

class Sharding : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { catalogs_ = new catalog::Catalogs(io::LoadCatalogs({}).value()); }
  static void TearDownTestSuite() { delete catalogs_; }

  // A TP-8 training scenario of `model` on one DGX-H100 (one micro-batch of one sequence).
  static train::TrainOptions Options(const std::string& model, int layers, bool sp) {
    train::TrainOptions o;
    o.model = *catalogs_->models.Find(model).value();
    o.model.layers = layers;
    train::ApplyNodeDefaults(*catalogs_->hardware.FindNode("dgx-h100").value(), o.hardware);
    o.hardware.gpus = 8;
    o.training.seq_len = 2048;
    o.training.global_batch = 1;
    o.training.micro_batch = 1;
    o.parallel.tp = 8;
    o.parallel.sequence_parallel = sp;
    return o;
  }
  static std::unique_ptr<train::OwnedStepContext> Context(const train::TrainOptions& o) {
    Result<std::unique_ptr<train::OwnedStepContext>> c = train::MakeStepContext(o, *catalogs_);
    EXPECT_TRUE(c.ok()) << c.error().message;
    return c.ok() ? std::move(c).value() : nullptr;
  }
  static catalog::Catalogs* catalogs_;
};
catalog::Catalogs* Sharding::catalogs_ = nullptr;

std::string StrategyOf(const ShardingGraph& g, const ShardingPlan& p, const std::string& op) {
  for (size_t i = 0; i < g.ops.size(); ++i) {
    if (g.ops[i].name == op) return std::string(Strategies(g.ops[i])[p.strategy[i]].name);
  }
  return "missing";
}

TEST_F(Sharding, BlocksOfALayerStack) {
  const train::TrainOptions o = Options("gpt3-125m", 3, false);
  const ShardingGraph g = BuildLayerStackGraph(o.model, 3, {});
  const std::vector<Block> blocks = FindBlocks(g);
  ASSERT_EQ(blocks.size(), 6u);  // attention half and MLP half of each layer
  for (size_t b = 0; b < blocks.size(); ++b) EXPECT_EQ(blocks[b].unique, static_cast<int>(b % 2));
  EXPECT_EQ(blocks.back().end, static_cast<int>(g.ops.size()));
}

TEST_F(Sharding, SearchEqualsBruteForceOnAnAttentionBlock) {
  const train::TrainOptions o = Options("gpt3-125m", 1, false);
  auto ctx = Context(o);
  ASSERT_NE(ctx, nullptr);
  const ShardingCostModel cost(ctx->ctx, o.model, {.tp = 8, .tokens = 2048, .seq = 2048});
  ShardingGraph g = BuildLayerStackGraph(o.model, 1, {});
  g.ops.resize(6);  // input_norm .. attn_residual
  ASSERT_EQ(g.ops.back().kind, ShardOpKind::kAdd);
  int64_t best = std::numeric_limits<int64_t>::max();
  std::vector<int> pick(g.ops.size(), 0);
  std::function<void(size_t)> rec = [&](size_t i) {
    if (i == g.ops.size()) {
      for (Layout in : {Layout::kReplicated, Layout::kTokens, Layout::kFeatures}) {
        if (auto c = PlanCost(g, cost, pick, in)) best = std::min(best, c->ToNanos());
      }
      return;
    }
    for (size_t s = 0; s < Strategies(g.ops[i]).size(); ++s) {
      pick[i] = static_cast<int>(s);
      rec(i + 1);
    }
  };
  rec(0);
  const ShardingPlans plans = SearchSharding(g, cost);
  const ShardingPlan* p = Best(plans);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->cost.ToNanos(), best);
  EXPECT_EQ(PlanCost(g, cost, p->strategy, p->input)->ToNanos(), best);
  Result<IlpSearch> ilp = SearchShardingIlp(g, cost);
  ASSERT_TRUE(ilp.ok()) << ilp.error().message;
  EXPECT_EQ(ilp->plan.cost.ToNanos(), best);
}

// Alpa's ILP over the whole graph finds the DP's optimum (GLPK proves it), on a model where
// replicated, Megatron and token-split operators each win somewhere, and with the input fixed.
TEST_F(Sharding, IlpEqualsTheExactSearch) {
  for (int tokens : {2048, 32768}) {
    const train::TrainOptions o = Options("gpt3-350m", 4, false);
    auto ctx = Context(o);
    ASSERT_NE(ctx, nullptr);
    const ShardingCostModel cost(ctx->ctx, o.model, {.tp = 8, .tokens = tokens, .seq = 2048});
    const ShardingGraph g = BuildLayerStackGraph(o.model, 4, {});
    for (std::optional<Layout> in : {std::optional<Layout>(), std::optional<Layout>(Layout::kFeatures)}) {
      const ShardingPlans plans = SearchSharding(g, cost, in);
      const ShardingPlan* dp = Best(plans);
      ASSERT_NE(dp, nullptr);
      Result<IlpSearch> ilp = SearchShardingIlp(g, cost, in);
      ASSERT_TRUE(ilp.ok()) << ilp.error().message;
      EXPECT_EQ(ilp->plan.cost, dp->cost) << tokens;
      if (in) {
        EXPECT_EQ(ilp->plan.input, *in);
      }
      EXPECT_EQ(ilp->plan.strategy.size(), g.ops.size());
      EXPECT_GT(ilp->variables, static_cast<int>(g.ops.size()) * 2);  // s and e vectors
    }
  }
}

TEST_F(Sharding, FoldedEqualsUnfoldedOnARepeatedModel) {
  for (int tokens : {2048, 32768}) {  // the second makes token (data) splitting win some operators
    const train::TrainOptions o = Options("gpt3-350m", 6, false);
    auto ctx = Context(o);
    ASSERT_NE(ctx, nullptr);
    const ShardingCostModel cost(ctx->ctx, o.model, {.tp = 8, .tokens = tokens, .seq = 2048});
    const ShardingGraph g = BuildLayerStackGraph(o.model, 6, {});
    const ShardingPlans plans = SearchSharding(g, cost);
    const ShardingPlan* whole = Best(plans);
    const FoldedSearch folded = SearchFolded(g, cost);
    ASSERT_NE(whole, nullptr);
    ASSERT_TRUE(folded.plan);
    EXPECT_EQ(folded.unique_blocks, 2);
    EXPECT_EQ(folded.plan->cost, whole->cost);
    EXPECT_EQ(folded.plan->strategy, whole->strategy);
    EXPECT_LT(folded.states, whole->states);
  }
}

TEST_F(Sharding, GptLayerIsMegatronAndCostsTheTrainTpStep) {
  const train::TrainOptions o = Options("gpt3-175b", 2, false);
  auto ctx = Context(o);
  ASSERT_NE(ctx, nullptr);
  const ShardingCostModel cost(ctx->ctx, o.model, {.tp = 8, .tokens = 2048, .seq = 2048});
  const ShardingGraph g = BuildLayerStackGraph(o.model, 1, {});
  const ShardingPlans plans = SearchSharding(g, cost);
  const ShardingPlan* p = Best(plans);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(StrategyOf(g, *p, "qkv_proj"), "column");
  EXPECT_EQ(StrategyOf(g, *p, "core_attention"), "heads");
  EXPECT_EQ(StrategyOf(g, *p, "out_proj"), "row");
  EXPECT_EQ(StrategyOf(g, *p, "mlp_up"), "column");
  EXPECT_EQ(StrategyOf(g, *p, "mlp_down"), "row");
  // Norms and residual adds on split tokens: Megatron's sequence parallelism.
  const bool sp = StrategyOf(g, *p, "input_norm") == "tokens";
  // The train module's per-layer compute + TP communication: one more layer's difference.
  auto layer_time = [&](int layers) {
    const train::StepResult r =
        train::Simulate(Options("gpt3-175b", layers, sp), *catalogs_, nullptr).value();
    return r.breakdown.compute_s + r.breakdown.tp_comm_s;
  };
  const double train_layer = layer_time(3) - layer_time(2);
  EXPECT_NEAR(p->cost.ToSeconds(), train_layer, 1e-3 * train_layer);
}

}  // namespace
}  // namespace dlsim::plan
