#include "dlsim/studies/multitask/wavefront.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/core/rng.h"
#include "dlsim/studies/multitask/simulate.h"
#include "dlsim/studies/multitask/step_cost.h"
#include "multitask/context.h"
#include "multitask/workloads.h"

namespace dlsim::multitask {
namespace {

using testing::St;

// A curve without a cost model: `ms` per layer on one device, speedup n^alpha up to `cap` devices
// (pure data parallelism), activations 1 MB per layer.
ScalingCurve Synthetic(double ms, double alpha, int cap, int budget) {
  ScalingCurve c;
  c.model_flops = Flops(1e12);
  for (int n = 1; n <= budget; ++n) {
    ScalePoint p;
    p.feasible = true;
    const int used = std::min(n, cap);
    p.config = {used, 1};
    p.fwd = Millis(ms / 3 / std::pow(used, alpha));
    p.bwd = p.fwd * int64_t{2};
    p.saved = Bytes(1e6);
    c.points.push_back(p);
  }
  return c;
}

// A random multi-task workload: 1-4 tasks of 1-5 stages over 3 modules, each stage reading a random
// subset of the earlier ones (or the one before).
Workload RandomWorkload(Rng& rng) {
  Workload w;
  w.name = "random";
  w.modules = {testing::Transformer("a", testing::Shape(4, 256, 4)),
               testing::Transformer("b", testing::Shape(3, 512, 8)), testing::Head("h", 256, 100)};
  const char* mods[] = {"a", "b", "h"};
  const int tasks = 1 + static_cast<int>(rng.NextBelow(4));
  for (int t = 0; t < tasks; ++t) {
    Task task{"t" + std::to_string(t), 1 + static_cast<int>(rng.NextBelow(64)), {}};
    const int stages = 1 + static_cast<int>(rng.NextBelow(5));
    for (int s = 0; s < stages; ++s) {
      Stage st =
          St("s" + std::to_string(s), mods[rng.NextBelow(3)], 1 + static_cast<int>(rng.NextBelow(300)));
      if (s > 0 && rng.NextBelow(2) == 0) {
        std::vector<std::string> after;
        for (int e = 0; e < s; ++e)
          if (rng.NextBelow(2) == 0) after.push_back("s" + std::to_string(e));
        st.after = after;
      }
      task.stages.push_back(st);
    }
    w.tasks.push_back(task);
  }
  return w;
}

int WaveDevices(const Wave& w) {
  int n = 0;
  for (const Slice& s : w.slices) n += s.devices.count;
  return n;
}

// On random DAGs and budgets: every dependency respected, every layer once in order, no wave over the
// budget, TP groups aligned, at most one wave per MetaOp; the same for the sequential baseline.
TEST(Wavefront, RespectsDependenciesAndTheBudget) {
  Rng rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const Workload w = RandomWorkload(rng);
    const MetaGraph g = Contract(w).value();
    const int budget = 1 + static_cast<int>(rng.NextBelow(24));
    std::vector<ScalingCurve> curves;
    for (size_t i = 0; i < g.ops.size(); ++i) {
      curves.push_back(Synthetic(0.1 + static_cast<double>(rng.NextBelow(100)) / 10,
                                 0.3 + 0.7 * rng.NextDouble(), 1 + static_cast<int>(rng.NextBelow(32)),
                                 budget));
    }
    const SchedulerInputs in{&w, &g, &curves, budget, nullptr, Placement::kMinMovement};
    auto s = WavefrontSchedule(in);
    ASSERT_TRUE(s.ok()) << s.error().message;
    ASSERT_TRUE(CheckSchedule(g, *s).ok())
        << "trial " << trial << ": " << CheckSchedule(g, *s).error().message;
    EXPECT_LE(s->waves.size(), g.ops.size());
    for (const Wave& wave : s->waves) EXPECT_LE(WaveDevices(wave), budget);
    auto seq = SequentialSchedule(in);
    ASSERT_TRUE(seq.ok());
    ASSERT_TRUE(CheckSchedule(g, *seq).ok());
    EXPECT_EQ(seq->waves.size(), g.ops.size());
  }
}

TEST(Wavefront, CheckScheduleFindsViolations) {
  const Workload w = testing::SingleChain(4);
  const MetaGraph g = Contract(w).value();
  std::vector<ScalingCurve> curves = {Synthetic(1, 1, 8, 8), Synthetic(1, 1, 8, 8)};
  const SchedulerInputs in{&w, &g, &curves, 8, nullptr, Placement::kMinMovement};
  const Schedule good = WavefrontSchedule(in).value();
  ASSERT_TRUE(CheckSchedule(g, good).ok());
  Schedule bad = good;  // the head beside the encoder it reads
  bad.waves[0].slices.push_back(bad.waves[1].slices[0]);
  bad.waves[0].slices.back().devices = {0, 8};
  bad.waves.pop_back();
  EXPECT_FALSE(CheckSchedule(g, bad).ok());
  bad = good;
  bad.waves[0].slices[0].devices.begin = 4;  // past the budget
  EXPECT_FALSE(CheckSchedule(g, bad).ok());
  bad = good;
  bad.waves[0].slices[0].layers = 3;  // a layer never runs
  EXPECT_FALSE(CheckSchedule(g, bad).ok());
}

// Perfectly scaling independent MetaOps gain nothing from running side by side; sublinear ones do.
TEST(Wavefront, GainsOnlyFromSublinearScaling) {
  const Workload w = testing::FourTasks({8, 8, 8, 8});
  const MetaGraph g = Contract(w).value();
  for (double alpha : {1.0, 0.5}) {
    std::vector<ScalingCurve> curves;
    for (size_t i = 0; i < g.ops.size(); ++i) curves.push_back(Synthetic(12, alpha, 64, 16));
    const SchedulerInputs in{&w, &g, &curves, 16, nullptr, Placement::kMinMovement};
    const StepCost wave = Evaluate(in, WavefrontSchedule(in).value());
    const StepCost seq = Evaluate(in, SequentialSchedule(in).value());
    if (alpha == 1.0) {
      EXPECT_NEAR(wave.step / seq.step, 1.0, 0.02);
    } else {
      EXPECT_LT(wave.step / seq.step, 0.6);
    }
  }
}

// A single task whose MetaOps form a chain has one MetaOp per wave on the whole budget: exactly the
// sequential baseline, under the real cost model, movement and synchronisation included.
TEST(Wavefront, ASingleTaskChainEqualsTheBaselineExactly) {
  Workload three = testing::SingleChain(12, 64, 256);
  three.modules.insert(three.modules.begin() + 1, testing::Transformer("dec", testing::Shape(6, 1024, 16)));
  three.tasks[0].stages.insert(three.tasks[0].stages.begin() + 1, St("dec", "dec", 64));
  for (const Workload& w : {testing::SingleChain(12, 64, 256), testing::SingleChain(1, 3, 77), three}) {
    for (int gpus : {1, 8, 16}) {
      auto r = Simulate(testing::Options(w, gpus), testing::Cat());
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_EQ(r->wavefront.cost.step, r->baseline.cost.step) << w.name << " on " << gpus;
      EXPECT_EQ(r->wavefront.cost.waves, r->baseline.cost.waves);
      EXPECT_EQ(r->wavefront_speedup, 1.0);
      EXPECT_EQ(r->speedup, 1.0);
      for (size_t i = 0; i < r->wavefront.schedule.waves.size(); ++i) {
        const Slice& a = r->wavefront.schedule.waves[i].slices.at(0);
        const Slice& b = r->baseline.schedule.waves[i].slices.at(0);
        EXPECT_EQ(a.devices, b.devices);
        EXPECT_EQ(a.config, b.config);
      }
    }
  }
}

// The mechanism, on the scheduler alone: four tasks of equal work whose MetaOps scale as n^alpha, with
// alpha spread over [1 - h, 1]. All alike (h = 0, linear) the sequence is already optimal; the wider the
// spread, the more the baseline loses running the poor scalers on every device, and the larger the gain.
TEST(Wavefront, MoreHeterogeneousScalingGainsMore) {
  const Workload w = testing::FourTasks({8, 8, 8, 8});
  const MetaGraph g = Contract(w).value();
  double last = 0;
  for (double h : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    std::vector<ScalingCurve> curves;
    for (const MetaOp& op : g.ops) curves.push_back(Synthetic(12, 1 - h * op.task / 3.0, 64, 16));
    const SchedulerInputs in{&w, &g, &curves, 16, nullptr, Placement::kMinMovement};
    const double gain =
        Evaluate(in, SequentialSchedule(in).value()).step / Evaluate(in, WavefrontSchedule(in).value()).step;
    if (h == 0) {
      EXPECT_NEAR(gain, 1.0, 0.01);
    }
    EXPECT_GT(gain, last + 0.1) << "h " << h;
    last = gain;
  }
}

// The same under the cost model: tasks of other modalities (their own encoders, the shared text encoder)
// added one by one to an image-text task raise the gain every time.
TEST(Wavefront, MoreTasksOfOtherModalitiesGainMore) {
  for (int gpus : {16, 32}) {
    double last = 1.0;
    for (int tasks = 1; tasks <= 4; ++tasks) {
      Workload w = testing::FourTasks({256, 256, 256, 256});
      w.tasks.resize(static_cast<size_t>(tasks));
      auto r = Simulate(testing::Options(w, gpus), testing::Cat());
      ASSERT_TRUE(r.ok()) << r.error().message;
      EXPECT_GT(r->speedup, last) << tasks << " tasks on " << gpus;
      last = r->speedup;
    }
  }
}

// Placement changes where slices run, not what they run: the same compute; the node- and
// module-aware placement synchronises and moves no slower than the in-order layout.
TEST(Wavefront, PlacementKeepsModulesTogether) {
  for (int gpus : {16, 32, 64}) {
    MultitaskOptions o = testing::Options(testing::FourTasks({256, 64, 256, 32}), gpus);
    o.placement = Placement::kInOrder;
    auto plain = Simulate(o, testing::Cat());
    o.placement = Placement::kMinMovement;
    auto placed = Simulate(o, testing::Cat());
    ASSERT_TRUE(plain.ok() && placed.ok());
    const StepCost& a = plain->wavefront.cost;
    const StepCost& b = placed->wavefront.cost;
    EXPECT_EQ(a.compute, b.compute);
    EXPECT_LE(b.sync + b.transfer, a.sync + a.transfer) << gpus;
  }
}

TEST(Wavefront, IsDeterministic) {
  const MultitaskOptions o = testing::Options(testing::FourTasks({100, 20, 60, 12}), 24);
  auto a = Simulate(o, testing::Cat());
  auto b = Simulate(o, testing::Cat());
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->wavefront.cost.step, b->wavefront.cost.step);
  ASSERT_EQ(a->wavefront.schedule.waves.size(), b->wavefront.schedule.waves.size());
  for (size_t i = 0; i < a->wavefront.schedule.waves.size(); ++i) {
    const Wave& x = a->wavefront.schedule.waves[i];
    const Wave& y = b->wavefront.schedule.waves[i];
    ASSERT_EQ(x.slices.size(), y.slices.size());
    for (size_t j = 0; j < x.slices.size(); ++j) {
      EXPECT_EQ(x.slices[j].op, y.slices[j].op);
      EXPECT_EQ(x.slices[j].layers, y.slices[j].layers);
      EXPECT_EQ(x.slices[j].devices, y.slices[j].devices);
    }
  }
}

TEST(MoveTime, MovesOnlyWhatIsNotLocal) {
  const train::StepContext& ctx = testing::Ctx();
  double moved = 0;
  EXPECT_EQ(MoveTime(&ctx, {0, 8}, {0, 8}, 1e9, &moved), Duration::Zero());
  EXPECT_EQ(moved, 0);
  EXPECT_EQ(MoveTime(nullptr, {0, 8}, {8, 8}, 1e9), Duration::Zero());
  const Duration inside = MoveTime(&ctx, {0, 4}, {4, 4}, 1e9, &moved);  // one node: NVLink
  EXPECT_EQ(moved, 1e9);
  const Duration across = MoveTime(&ctx, {0, 4}, {8, 4}, 1e9);  // two nodes: the NICs
  EXPECT_GT(across, inside);
  moved = 0;
  MoveTime(&ctx, {0, 16}, {0, 4}, 1e9, &moved);  // a quarter is already there
  EXPECT_DOUBLE_EQ(moved, 0.75e9);
}

}  // namespace
}  // namespace dlsim::multitask
