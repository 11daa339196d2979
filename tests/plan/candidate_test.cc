// Enumeration and pruning rules of the planner, one rule per test.
#include "dlsim/plan/candidate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "plan_test_util.h"

namespace dlsim::plan {
namespace {

using testing::PlanFixture;
using train::PipelineScheduleKind;

class CandidateTest : public PlanFixture {
 protected:
  void SetUp() override {
    PlanFixture::SetUp();
    base_ = Load("small_13b.yaml").base;
  }
  uint64_t Pruned(const Enumeration& e, const std::string& reason) {
    for (const auto& [r, n] : e.pruned)
      if (r == reason) return n;
    return 0;
  }
  MemoryLimits Roomy() { return {GiB(1000), GiB(0), 0}; }
  train::TrainOptions base_;
};

TEST_F(CandidateTest, EmptySpaceIsTheScenarioItself) {
  const Enumeration e = EnumerateCandidates(base_, PlanOptions{}, Roomy());
  ASSERT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(e.candidates[0], CandidateOf(base_));
  EXPECT_EQ(e.space_size, 1u);
  EXPECT_EQ(ApplyCandidate(base_, e.candidates[0]).parallel.tp, base_.parallel.tp);
}

TEST_F(CandidateTest, DivisibilityPrunesWhatTheSimulatorRejects) {
  PlanOptions o;
  o.space.tp = {1, 3, 8};  // 20 heads: 3 and 8 do not divide
  o.space.pp = {1};
  base_.model.heads = base_.model.kv_heads = 20;
  o.space.micro_batch = {1, 3};  // 32 sequences over dp * 3 never divide
  const Enumeration e = EnumerateCandidates(base_, o, Roomy());
  EXPECT_EQ(e.space_size, 6u);
  // tp 3 does not divide 8 GPUs (counted under gpu count), tp 8 does not divide
  // 20 heads.
  EXPECT_EQ(Pruned(e, kPrunedGpuCount), 2u);
  EXPECT_EQ(Pruned(e, kPrunedHeads), 2u);
  EXPECT_EQ(Pruned(e, kPrunedBatch), 1u);
  ASSERT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(e.candidates[0].tp, 1);
  EXPECT_EQ(e.candidates[0].micro_batch, 1);
  for (int tp : {3, 8}) {
    train::TrainOptions t = base_;
    t.parallel.tp = tp;
    t.parallel.pp = 1;
    t.parallel.dp = 0;
    EXPECT_FALSE(train::MakeParallelPlan(t).ok()) << tp;
  }
}

TEST_F(CandidateTest, FoldsEquivalentKeys) {
  PlanOptions o;
  o.space.tp = {1};
  o.space.pp = {1};
  o.space.sequence_parallel = {true, false};  // meaningless at tp 1
  o.space.virtual_stages = {1, 2};            // meaningless without interleaved
  const Enumeration e = EnumerateCandidates(base_, o, Roomy());
  EXPECT_EQ(e.space_size, 4u);
  EXPECT_EQ(e.candidates.size(), 1u);
  EXPECT_EQ(Pruned(e, kPrunedEquivalent), 3u);
  EXPECT_FALSE(e.candidates[0].sequence_parallel);
}

TEST_F(CandidateTest, ZeroStageIsIrrelevantWithoutDataParallelism) {
  PlanOptions o;
  o.space.tp = {8};
  o.space.pp = {1};
  o.space.zero = {1, 2, 3};
  o.constraints.gpus = {8};
  train::TrainOptions b = base_;
  b.model.heads = 32;  // 13B has 40 heads, which tp 8 does not divide
  b.model.kv_heads = 32;
  b.model.hidden = 4096;
  const Enumeration e = EnumerateCandidates(b, o, Roomy());
  ASSERT_EQ(e.candidates.size(),
            1u);  // dp 1: zero 1, 2, 3 are one configuration
  EXPECT_EQ(e.candidates[0].zero, 1);
  EXPECT_EQ(Pruned(e, kPrunedEquivalent), 2u);
}

// A base scenario with FSDP's keep-gathered weights and deferred gradient reduction (zero 3): a candidate at
// a lower ZeRO stage drops what its stage has no sharded state for, so its scenario stays valid.
TEST_F(CandidateTest, LowerZeroStagesDropFsdpOnlyKeys) {
  using train::Pipelined;
  train::TrainOptions b = base_;
  b.parallel.zero = 3;
  b.parallel.keep_gathered = Pipelined::kYes;
  b.parallel.defer_grad_reduce = Pipelined::kYes;
  Candidate c = CandidateOf(b);
  EXPECT_EQ(ApplyCandidate(b, c).parallel.keep_gathered, Pipelined::kYes);
  EXPECT_EQ(ApplyCandidate(b, c).parallel.defer_grad_reduce, Pipelined::kYes);
  c.zero = 2;
  EXPECT_EQ(ApplyCandidate(b, c).parallel.keep_gathered, Pipelined::kNo);
  EXPECT_EQ(ApplyCandidate(b, c).parallel.defer_grad_reduce, Pipelined::kYes);
  c.zero = 1;
  EXPECT_EQ(ApplyCandidate(b, c).parallel.defer_grad_reduce, Pipelined::kNo);
  // The pipelined form stays: it resolves by the candidate's zero and pp.
  b.parallel.keep_gathered = Pipelined::kWhenPipelined;
  EXPECT_EQ(ApplyCandidate(b, c).parallel.keep_gathered, Pipelined::kWhenPipelined);
  EXPECT_FALSE(train::KeepsGatheredWeights(ApplyCandidate(b, c).parallel));
}

TEST_F(CandidateTest, MemoryLowerBoundPrunesOnlyWhatCannotFit) {
  PlanOptions o;
  o.space.tp = {1, 2};
  o.space.pp = {1};
  o.space.zero = {0, 3};
  const MemoryLimits h100{GiB(80), GiB(2), 0};
  const Enumeration e = EnumerateCandidates(base_, o, h100);
  // 13B parameters at 18 B each need 234 GB on one GPU (zero 0, tp 1) and 117
  // GB at tp 2; ZeRO-3 over dp 8 or 4 fits the states.
  EXPECT_EQ(Pruned(e, kPrunedMemory), 2u);
  for (const Candidate& c : e.candidates) EXPECT_EQ(c.zero, 3);
}

TEST_F(CandidateTest, GpuRangeUsesWholeNodesAndTokenBudgetSetsTheBatch) {
  PlanOptions o;
  o.space.tp = {2};
  o.space.pp = {2};
  o.constraints.gpus_min = 4;
  o.constraints.gpus_max = 24;
  o.constraints.tokens_per_step = int64_t{4096} * 30;  // 30 sequences
  const Enumeration e = EnumerateCandidates(base_, o, Roomy());
  std::vector<int> gpus;
  for (const Candidate& c : e.candidates) {
    gpus.push_back(c.gpus);
    EXPECT_EQ(c.global_batch % (c.micro_batch * c.dp), 0);
    EXPECT_LE(c.global_batch, 30);
    EXPECT_GT(c.global_batch + c.micro_batch * c.dp,
              30);  // the largest multiple
  }
  EXPECT_EQ(gpus, (std::vector<int>{4, 8, 16, 24}));  // 12 and 20 are not whole nodes
  EXPECT_EQ(Pruned(e, kPrunedGpuCount), 2u);
}

TEST_F(CandidateTest, KeepsExplicitLayerPlacementOnlyForTheSameStages) {
  train::TrainOptions b = base_;
  b.parallel.layers_per_stage = {19, 21};
  Candidate same = CandidateOf(b);
  EXPECT_EQ(ApplyCandidate(b, same).parallel.layers_per_stage, b.parallel.layers_per_stage);
  Candidate other = same;
  other.pp = 4;
  EXPECT_TRUE(ApplyCandidate(b, other).parallel.layers_per_stage.empty());
}

TEST_F(CandidateTest, DiffNamesChangedKeys) {
  Candidate a = CandidateOf(base_), b = a;
  b.pp = 4;
  b.recompute = train::Recompute::kFull;
  EXPECT_EQ(DiffCandidates(a, b), "pp 2->4, recompute selective->full");
  EXPECT_EQ(DiffCandidates(a, a), "");
}

}  // namespace
}  // namespace dlsim::plan
