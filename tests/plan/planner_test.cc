// The planner against brute force, its determinism across back-ends, and the
// soundness of its pruning (every pruned candidate really is infeasible or no
// better).
#include "dlsim/plan/planner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

#include "dlsim/io/train_scenario.h"
#include "dlsim/train/step_model.h"
#include "plan_test_util.h"

namespace dlsim::plan {
namespace {

using testing::PlanFixture;
using train::PipelineScheduleKind;
using train::Recompute;

class PlannerTest : public PlanFixture {
 protected:
  PlanResult Run(const io::PlanScenario& s, int threads, bool dominance = true) {
    PlanOptions o = s.options;
    o.dominance = dominance;
    auto backend = MakeThreadBackend(threads);
    auto r = RunPlanner(s.base, o, Factory(s.base), *backend, {});
    EXPECT_TRUE(r.ok()) << r.error().message;
    return *r;
  }
};

// Every combination of the listed values, simulated directly, no pruning of any
// kind.
TEST_F(PlannerTest, BestEqualsBruteForce) {
  const io::PlanScenario s = Load("small_13b.yaml");
  const SearchSpace& sp = s.options.space;
  auto owned = Factory(s.base)();
  ASSERT_TRUE(owned.ok());
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  const Bytes usable = (*owned)->gpu.hbm_capacity * (1 - s.options.constraints.memory_headroom);
  double best = std::numeric_limits<double>::infinity();
  std::string best_layout;
  int simulated = 0;
  for (int gpus : s.options.constraints.gpus)
    for (int tp : sp.tp)
      for (int pp : sp.pp)
        for (int mb : sp.micro_batch)
          for (auto sched : sp.pipeline_schedule)
            for (int vs : sp.virtual_stages)
              for (int zero : sp.zero)
                for (auto rc : sp.recompute)
                  for (bool seqp : sp.sequence_parallel) {
                    if (gpus % (tp * pp) != 0) continue;
                    // What the scenario parser rejects (dlsim train would not
                    // run it).
                    if (vs > 1 && sched != PipelineScheduleKind::kInterleaved) continue;
                    if (sched == PipelineScheduleKind::kInterleaved && pp < 2) continue;
                    train::TrainOptions o = s.base;
                    o.hardware.gpus = gpus;
                    o.training.micro_batch = mb;
                    o.parallel.tp = tp;
                    o.parallel.pp = pp;
                    o.parallel.dp = gpus / (tp * pp);
                    o.parallel.pipeline_schedule = sched;
                    o.parallel.virtual_stages = vs;
                    o.parallel.zero = zero;
                    o.parallel.recompute = rc;
                    o.parallel.sequence_parallel = seqp;
                    o.parallel.layers_per_stage.clear();
                    const auto r = train::SimulateTrainingStep(o, (*owned)->ctx, schedules, nullptr).value();
                    ++simulated;
                    if (r.feasible && r.peak_memory <= usable && r.step_time_s < best) {
                      best = r.step_time_s;
                      best_layout = io::SummarizeTrainOptions(o);
                    }
                  }
  ASSERT_GT(simulated, 300);
  ASSERT_TRUE(std::isfinite(best));
  const PlanResult plan = Run(s, 2);
  ASSERT_NE(plan.Best(), nullptr);
  EXPECT_DOUBLE_EQ(plan.Best()->eval.step_time_s, best)
      << "brute force: " << best_layout << "\nplanner: " << DescribeCandidate(plan.Best()->candidate, true);
  // The planner simulated far fewer than brute force, and says why.
  EXPECT_LT(plan.evaluated.size(), static_cast<size_t>(simulated) / 2);
  EXPECT_GT(plan.pruned_total, 0u);
  EXPECT_EQ(plan.pruned_total + plan.evaluated.size(), plan.space_size);
}

TEST_F(PlannerTest, SameResultForAnyThreadCountAndWithoutDominance) {
  const io::PlanScenario s = Load("small_13b.yaml");
  const PlanResult one = Run(s, 1), three = Run(s, 3), full = Run(s, 2, /*dominance=*/false);
  ASSERT_EQ(one.evaluated.size(), three.evaluated.size());
  for (size_t i = 0; i < one.evaluated.size(); ++i) {
    EXPECT_EQ(one.evaluated[i].candidate, three.evaluated[i].candidate);
    EXPECT_EQ(one.evaluated[i].eval, three.evaluated[i].eval);
  }
  EXPECT_EQ(one.ranking, three.ranking);
  EXPECT_EQ(one.pareto_gpus, three.pareto_gpus);
  EXPECT_EQ(one.pareto_memory, three.pareto_memory);
  // Dominance skips simulations but never changes the best.
  EXPECT_GT(full.evaluated.size(), one.evaluated.size());
  ASSERT_NE(full.Best(), nullptr);
  EXPECT_EQ(full.Best()->candidate, one.Best()->candidate);
}

TEST_F(PlannerTest, MemoryLowerBoundNeverExceedsSimulatedPeak) {
  io::PlanScenario s = Load("small_13b.yaml");
  s.options.constraints.memory_headroom = 0;
  const PlanResult r = Run(s, 2, /*dominance=*/false);
  auto owned = Factory(s.base)();
  ASSERT_TRUE(owned.ok());
  int checked = 0;
  for (const EvaluatedCandidate& e : r.evaluated) {
    const train::TrainOptions o = ApplyCandidate(s.base, e.candidate);
    auto plan = train::MakeParallelPlan(o);
    ASSERT_TRUE(plan.ok());
    const Bytes bound = StaticMemoryLowerBound(o, *plan, (*owned)->ctx.framework_overhead);
    EXPECT_LE(bound.value(), e.eval.peak_memory_bytes * (1 + 1e-9)) << DescribeCandidate(e.candidate);
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST_F(PlannerTest, RanksBaselineAndBuildsFronts) {
  const io::PlanScenario s = Load("small_13b.yaml");
  const PlanResult r = Run(s, 2);
  ASSERT_TRUE(r.baseline.has_value());
  ASSERT_TRUE(r.baseline_rank.has_value());
  EXPECT_EQ(r.evaluated[r.ranking[*r.baseline_rank - 1]].candidate, r.evaluated[*r.baseline].candidate);
  // Fronts: strictly improving step time along increasing GPUs / memory; the
  // best is on both.
  ASSERT_FALSE(r.pareto_gpus.empty());
  for (size_t i = 1; i < r.pareto_gpus.size(); ++i) {
    const auto& a = r.evaluated[r.pareto_gpus[i - 1]];
    const auto& b = r.evaluated[r.pareto_gpus[i]];
    EXPECT_LT(a.candidate.gpus, b.candidate.gpus);
    EXPECT_GT(a.eval.step_time_s, b.eval.step_time_s);
  }
  EXPECT_EQ(r.evaluated[r.pareto_gpus.back()].eval.step_time_s, r.Best()->eval.step_time_s);
  EXPECT_EQ(r.evaluated[r.pareto_memory.back()].eval.step_time_s, r.Best()->eval.step_time_s);
  EXPECT_EQ(WhyDifferent(*r.Best(), *r.Best(), r.objective), "best");
  const auto& second = r.evaluated[r.ranking[1]];
  EXPECT_NE(WhyDifferent(*r.Best(), second, r.objective).find("->"), std::string::npos);
}

// Two layouts that tie on the objective: the planner returns the one with fewer GPUs (the same
// speed for less hardware), whatever order they were enumerated in.
TEST(PlannerRanking, TieGoesToFewerGpus) {
  EvaluatedCandidate small, big;
  small.id = 7;
  small.candidate.gpus = 8;
  big.id = 3;  // enumerated first
  big.candidate.gpus = 16;
  small.score = big.score = 1.25;
  EXPECT_TRUE(RanksBefore(small, big));
  EXPECT_FALSE(RanksBefore(big, small));
  big.score = 1.24;  // strictly better wins regardless of GPUs
  EXPECT_TRUE(RanksBefore(big, small));
  EvaluatedCandidate twin = small;  // same score and GPUs: enumeration order decides
  twin.id = 2;
  EXPECT_TRUE(RanksBefore(twin, small));
  EXPECT_FALSE(RanksBefore(small, small));  // irreflexive: a strict order for std::sort
}

// The tokens-per-GPU objective ranks by throughput per GPU: the best has the highest value and
// every ranked candidate's objective is what its evaluation says.
TEST_F(PlannerTest, TokensPerGpuSecondRanksByThroughputPerGpu) {
  io::PlanScenario s = Load("small_13b.yaml");
  s.options.constraints.objective = Objective::kTokensPerGpuSecond;
  const PlanResult r = Run(s, 2);
  ASSERT_NE(r.Best(), nullptr);
  ASSERT_GE(r.ranking.size(), 2u);
  for (size_t i = 0; i + 1 < r.ranking.size(); ++i) {
    const EvaluatedCandidate &a = r.evaluated[r.ranking[i]], &b = r.evaluated[r.ranking[i + 1]];
    EXPECT_GE(a.eval.tokens_per_s_per_gpu, b.eval.tokens_per_s_per_gpu * (1 - 1e-12));
    EXPECT_DOUBLE_EQ(a.objective, a.eval.tokens_per_s_per_gpu);
  }
}

TEST(EvaluationCodec, RoundTrips) {
  Evaluation a;
  a.feasible = true;
  a.step_time_s = 1.25;
  a.breakdown.pp_bubble_s = 0.5;
  a.bottleneck = "pipeline bubble";
  Evaluation b;
  b.reason = "out of memory: \"short\" by 3 GiB";
  b.micro_batches = 7;
  std::string bytes;
  EncodeEvaluation(a, &bytes);
  EncodeEvaluation(b, &bytes);
  auto back = DecodeEvaluations(bytes);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0], a);
  EXPECT_EQ((*back)[1], b);
  EXPECT_FALSE(DecodeEvaluations(std::string_view(bytes).substr(0, bytes.size() - 1)).ok());
}

}  // namespace
}  // namespace dlsim::plan

namespace dlsim::plan {
namespace {

// The planner searches expert parallelism (issue 15): ep values that do not divide the experts or the
// stage's GPUs are pruned under their reason; the rest are simulated, the memory lower bound holds for
// them, and the best layout spreads the experts (ep > 1: less expert memory and compute per GPU than
// replicating all 8 experts).
TEST_F(PlannerTest, SearchesExpertParallelism) {
  const io::PlanScenario s = Load("small_moe.yaml");
  const PlanResult r = Run(s, 2, /*dominance=*/false);
  uint64_t pruned = 0;
  for (const auto& [reason, n] : r.pruned)
    if (reason == std::string(kPrunedExperts)) pruned = n;
  EXPECT_EQ(pruned, 4u);  // ep 3 and ep 16 (8 experts), at pp 1 and 2
  std::set<int> eps;
  auto owned = Factory(s.base)();
  ASSERT_TRUE(owned.ok());
  for (const EvaluatedCandidate& e : r.evaluated) {
    eps.insert(e.candidate.ep);
    const train::TrainOptions o = ApplyCandidate(s.base, e.candidate);
    auto plan = train::MakeParallelPlan(o);
    ASSERT_TRUE(plan.ok());
    EXPECT_LE(StaticMemoryLowerBound(o, *plan, (*owned)->ctx.framework_overhead).value(),
              e.eval.peak_memory_bytes * (1 + 1e-9))
        << DescribeCandidate(e.candidate);
  }
  EXPECT_EQ(eps, (std::set<int>{1, 2, 4, 8}));
  ASSERT_FALSE(r.ranking.empty());
  EXPECT_GT(r.evaluated[r.ranking[0]].candidate.ep, 1);
}

}  // namespace
}  // namespace dlsim::plan
