#include "dlsim/studies/rlhf/pipeline_anneal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace dlsim::rlhf {
namespace {

// True when no pipeline's backward comes before its forward in the order (others deadlock).
bool PrefixValid(const std::vector<Task>& o, int pipelines) {
  std::vector<int> open(pipelines, 0);
  for (const Task& t : o) {
    open[t.pipeline] += t.forward ? 1 : -1;
    if (open[t.pipeline] < 0) return false;
  }
  return true;
}

// The best of every schedule of a tiny problem: all orders (multiset permutations) of every node's
// tasks, those where a backward precedes its own forward left out (they cannot run).
ScheduleCost ExhaustiveBest(const FusedProblem& p, int64_t* valid_count) {
  auto less = [](const Task& a, const Task& b) {
    return std::tie(a.pipeline, a.forward) < std::tie(b.pipeline, b.forward);
  };
  std::vector<std::vector<std::vector<Task>>> orders(p.nodes);
  for (int n = 0; n < p.nodes; ++n) {
    std::vector<Task> o;
    for (size_t q = 0; q < p.pipelines.size(); ++q) {
      const PipelineModel& m = p.pipelines[q];
      if (std::find(m.stage_nodes.begin(), m.stage_nodes.end(), n) == m.stage_nodes.end()) continue;
      for (int k = 0; k < m.micro_batches; ++k) {
        o.push_back({static_cast<int>(q), false});
        o.push_back({static_cast<int>(q), true});
      }
    }
    std::sort(o.begin(), o.end(), less);
    do {
      if (PrefixValid(o, static_cast<int>(p.pipelines.size()))) orders[n].push_back(o);
    } while (std::next_permutation(o.begin(), o.end(), less));
  }
  Schedule s;
  s.order.resize(p.nodes);
  std::optional<ScheduleCost> best;
  *valid_count = 0;
  std::function<void(int)> rec = [&](int n) {
    if (n == p.nodes) {
      const std::optional<ScheduleCost> c = Evaluate(p, s);
      if (!c) return;
      ++*valid_count;
      if (!best || c->BetterThan(*best)) best = c;
      return;
    }
    for (const auto& o : orders[n]) {
      s.order[n] = o;
      rec(n + 1);
    }
  };
  rec(0);
  return *best;
}

FusedProblem Tiny() {  // 2 nodes: actor 2 stages x 2 micro-batches, critic reversed, 1 micro-batch
  return {2, {{"actor", 0, {0, 1}, 2, 2, 4, 1.0}, {"critic", 1, {1, 0}, 1, 1, 2, 2.0}}};
}

FusedProblem Small() {  // 3 nodes: actor 3 stages x 2 micro-batches, critic reversed, 1 micro-batch
  return {3, {{"actor", 0, {0, 1, 2}, 2, 2, 4, 1.0}, {"critic", 1, {2, 1, 0}, 1, 1, 2, 1.0}}};
}

TEST(PipelineAnneal, NeverWorseThanItsStart) {
  const FusedProblem p = *FlexFusionInstance({8, 4, 8, 4, 5, 4, 1.95, 2});
  for (const Schedule& start : {SequentialOneFOneB(p), GreedySchedule(p), GreedySchedule(p, true)}) {
    for (uint64_t seed : {1, 2, 3}) {
      Result<AnnealResult> r = Anneal(p, start, {.seed = seed, .iterations = 3000});
      ASSERT_TRUE(r.ok());
      EXPECT_FALSE(r->start_cost.BetterThan(r->best_cost));
      EXPECT_EQ(Evaluate(p, r->best)->makespan, r->best_cost.makespan);
      EXPECT_GE(r->best_cost.makespan, LowerBound(p));
    }
  }
}

TEST(PipelineAnneal, ImprovesOnTheSequentialBaseline) {
  const FusedProblem p = *FlexFusionInstance({8, 4, 8, 4, 5, 4, 1.95, 2});
  Result<AnnealResult> r = Anneal(p, GreedySchedule(p), {.seed = 1, .iterations = 20000});
  ASSERT_TRUE(r.ok());
  EXPECT_LT(r->best_cost.makespan, SequentialMakespan(p));  // 225-ish vs 375
}

TEST(PipelineAnneal, GreedyStartsAreValidAndAboveTheBound) {
  for (const FlexFusionParams& f :
       {FlexFusionParams{8, 4, 16, 8, 5, 4, 1.95, 2}, FlexFusionParams{16, 8, 16, 8, 2, 2, 1.64, 2}}) {
    const FusedProblem p = *FlexFusionInstance(f);
    for (bool protect : {false, true}) {
      const std::optional<ScheduleCost> c = Evaluate(p, GreedySchedule(p, protect));
      ASSERT_TRUE(c);
      EXPECT_GE(c->makespan, LowerBound(p));
      EXPECT_LT(c->makespan, SequentialMakespan(p));
    }
    EXPECT_FALSE(Evaluate(p, GreedySchedule(p, true))->BetterThan(*Evaluate(p, BestGreedySchedule(p))));
  }
}

TEST(PipelineAnneal, DeterministicForASeed) {
  const FusedProblem p = Small();
  Result<AnnealResult> a = Anneal(p, SequentialOneFOneB(p), {.seed = 7, .iterations = 2000});
  Result<AnnealResult> b = Anneal(p, SequentialOneFOneB(p), {.seed = 7, .iterations = 2000});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->best.order, b->best.order);
  EXPECT_EQ(a->accepted, b->accepted);
}

TEST(PipelineAnneal, EqualsTheExhaustiveOptimumOnATinyProblem) {
  const FusedProblem p = Tiny();
  int64_t valid = 0;
  const ScheduleCost opt = ExhaustiveBest(p, &valid);
  EXPECT_GT(valid, 1);
  EXPECT_GE(opt.makespan, LowerBound(p));
  Result<AnnealResult> r = Anneal(p, SequentialOneFOneB(p), {.seed = 1, .iterations = 5000});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->best_cost.makespan, opt.makespan);
  EXPECT_DOUBLE_EQ(r->best_cost.peak_memory, opt.peak_memory);
}

TEST(PipelineAnneal, NeverBelowTheExhaustiveOptimum) {
  const FusedProblem p = Small();
  int64_t valid = 0;
  const ScheduleCost opt = ExhaustiveBest(p, &valid);
  EXPECT_GE(opt.makespan, LowerBound(p));
  EXPECT_GE(Evaluate(p, GreedySchedule(p))->makespan, opt.makespan);
  for (uint64_t seed : {1, 2, 3, 4}) {
    Result<AnnealResult> r = Anneal(p, GreedySchedule(p), {.seed = seed, .iterations = 4000});
    ASSERT_TRUE(r.ok());
    EXPECT_GE(r->best_cost.makespan, opt.makespan);
    EXPECT_FALSE(r->best_cost.BetterThan(opt));
  }
}

TEST(PipelineAnneal, BadOptionsAreErrors) {
  const FusedProblem p = Tiny();
  const Schedule s = SequentialOneFOneB(p);
  EXPECT_FALSE(Anneal(p, s, {.iterations = -1}).ok());
  EXPECT_FALSE(Anneal(p, s, {.swap = false, .adjacent_swap = false, .move = false}).ok());
  EXPECT_FALSE(Anneal(p, s, {.initial_temperature = 1, .final_temperature = 2}).ok());
  EXPECT_FALSE(Anneal(p, Schedule{}, {}).ok());
}

}  // namespace
}  // namespace dlsim::rlhf
