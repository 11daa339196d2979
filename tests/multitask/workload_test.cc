#include "dlsim/studies/multitask/workload.h"

#include <gtest/gtest.h>

#include "multitask/workloads.h"

namespace dlsim::multitask {
namespace {

using testing::Head;
using testing::Shape;
using testing::St;
using testing::Transformer;

TEST(Contract, ALayerChainOfOneStageIsOneMetaOp) {
  auto g = Contract(testing::SingleChain(12));
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->ops.size(), 2u);
  EXPECT_EQ(g->layer_nodes, 13);
  EXPECT_EQ(g->ops[0].name, "t/enc");
  EXPECT_EQ(g->ops[0].size(), 12);
  EXPECT_EQ(g->ops[0].layers[11], (LayerRef{0, 11}));
  EXPECT_EQ(g->ops[1].kind, ModuleKind::kHead);
  EXPECT_EQ(g->ops[1].preds, (std::vector<int>{0}));
  EXPECT_EQ(g->ops[0].succs, (std::vector<int>{1}));
}

TEST(Contract, ConsecutiveStagesWithTheSameWorkloadMerge) {
  // Two modules of the same shape run back to back on the same tokens: one MetaOp of 8 layers that
  // still records which module each layer belongs to. A different token count does not merge.
  Workload w;
  w.name = "w";
  w.modules = {Transformer("a", Shape(4, 512, 8)), Transformer("b", Shape(4, 512, 8))};
  w.tasks = {{"t", 8, {St("a", "a", 100), St("b", "b", 100), St("c", "a", 50)}}};
  auto g = Contract(w);
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->ops.size(), 2u);
  EXPECT_EQ(g->ops[0].name, "t/a+b");
  EXPECT_EQ(g->ops[0].size(), 8);
  EXPECT_EQ(g->ops[0].layers[4], (LayerRef{1, 0}));
  EXPECT_EQ(g->ops[1].size(), 4);
}

TEST(Contract, BranchesAndJoinsStayApart) {
  // x and text are sources; loss reads both. A join (two inputs) never merges into a predecessor.
  auto g = Contract(testing::FourTasks({8, 8, 8, 8}));
  ASSERT_TRUE(g.ok()) << g.error().message;
  ASSERT_EQ(g->ops.size(), 12u);
  for (int t = 0; t < 4; ++t) {
    const MetaOp& x = g->ops[3 * t];
    const MetaOp& text = g->ops[3 * t + 1];
    const MetaOp& loss = g->ops[3 * t + 2];
    EXPECT_TRUE(x.preds.empty());
    EXPECT_TRUE(text.preds.empty());
    EXPECT_EQ(loss.preds, (std::vector<int>{3 * t, 3 * t + 1}));
    EXPECT_EQ(text.task, t);
  }
  Workload w;
  w.name = "join";
  w.modules = {Transformer("a", Shape(2, 256, 4))};
  w.tasks = {{"t",
              4,
              {St("x", "a", 10), St("y", "a", 10, std::vector<std::string>{}),
               St("z", "a", 10, std::vector<std::string>{"x", "y"})}}};
  g = Contract(w);
  ASSERT_TRUE(g.ok());
  ASSERT_EQ(g->ops.size(), 3u);
  EXPECT_EQ(g->ops[2].preds, (std::vector<int>{0, 1}));
}

TEST(Validate, NamesTheProblem) {
  Workload w = testing::SingleChain();
  w.tasks[0].stages[1].module = "nope";
  EXPECT_NE(Validate(w).error().message.find("unknown module 'nope'"), std::string::npos);
  w = testing::SingleChain();
  w.tasks[0].stages[1].after = std::vector<std::string>{"head"};
  EXPECT_NE(Validate(w).error().message.find("not an earlier stage"), std::string::npos);
  w = testing::SingleChain();
  w.tasks[0].batch = 0;
  EXPECT_FALSE(Validate(w).ok());
  w = testing::SingleChain();
  w.modules.push_back(w.modules[0]);
  EXPECT_NE(Validate(w).error().message.find("given twice"), std::string::npos);
  w = testing::SingleChain();
  w.modules[0].shape.moe.experts = 8;
  w.modules[0].shape.moe.top_k = 2;
  w.modules[0].shape.moe.expert_ffn_hidden = 512;
  EXPECT_NE(Validate(w).error().message.find("mixture-of-experts"), std::string::npos);
  w = testing::SingleChain();
  w.tasks.clear();
  EXPECT_FALSE(Validate(w).ok());
}

TEST(Workload, LayerParametersAndOutputBytes) {
  const Workload w = testing::SingleChain(12, 64, 256);
  EXPECT_EQ(w.modules[0].LayerParameters(), w.modules[0].shape.LayerParameters());
  EXPECT_EQ(w.modules[1].LayerParameters(), 1024.0 * 1000 + 2 * 1024);  // projection + LayerNorm
  auto g = Contract(w);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(OutputBytes(g->ops[0], w), 64.0 * 256 * 1024 * 2);
}

}  // namespace
}  // namespace dlsim::multitask
