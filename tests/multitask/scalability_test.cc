#include "dlsim/studies/multitask/scalability.h"

#include <gtest/gtest.h>

#include "dlsim/train/simulate.h"
#include "multitask/context.h"
#include "multitask/workloads.h"

namespace dlsim::multitask {
namespace {

MetaGraph Graph(const Workload& w) { return Contract(w).value(); }

TEST(Scalability, TheCurveNeverRisesAndEachPointFitsItsCount) {
  const Workload w = testing::FourTasks({64, 8, 64, 64});
  const MetaGraph g = Graph(w);
  const ScalabilityEstimator est(testing::Ctx(), {});
  for (const MetaOp& op : g.ops) {
    const ScalingCurve c = est.Estimate(op, w, 32);
    ASSERT_EQ(c.max_devices(), 32);
    EXPECT_GT(c.model_flops.value(), 0);
    for (int n = 1; n <= 32; ++n) {
      const ScalePoint& p = c.at(n);
      ASSERT_TRUE(p.feasible);
      EXPECT_LE(p.config.devices(), n);
      EXPECT_LE(p.config.dp, op.samples);
      if (n > 1) {
        EXPECT_LE(p.total(), c.at(n - 1).total()) << op.name << " n " << n;
      }
    }
    const std::optional<ScalePoint> one = est.Price(op, w, {1, 1});
    ASSERT_TRUE(one);
    EXPECT_EQ(c.at(1).total(), one->total());
  }
}

TEST(Scalability, ConfigurationsFollowTheRules) {
  const Workload w = testing::FourTasks({64, 2, 64, 64});
  const MetaGraph g = Graph(w);
  const ScalabilityEstimator est(testing::Ctx(), {});
  const MetaOp& audio = g.ops[3];  // the 2-sample task's encoder: at most 2 replicas
  ASSERT_EQ(audio.samples, 2);
  EXPECT_LE(est.Estimate(audio, w, 64).at(64).config.dp, 2);
  EXPECT_FALSE(est.Price(audio, w, {3, 1}));  // more replicas than samples
  const MetaOp& depth = g.ops[6];             // 6 heads: tp 1 or 2 only
  EXPECT_TRUE(est.Price(depth, w, {1, 2}));
  EXPECT_FALSE(est.Price(depth, w, {1, 4}));
  EXPECT_FALSE(est.Price(g.ops[0], w, {1, 16}));  // beyond a node of 8
  EXPECT_FALSE(est.Price(g.ops[0], w, {1, 3}));   // not a power of two
  // Tensor parallelism communicates; one replica per device does not.
  EXPECT_GT(est.Price(g.ops[0], w, {1, 4})->tp_comm, Duration::Zero());
  EXPECT_EQ(est.Price(g.ops[0], w, {4, 1})->tp_comm, Duration::Zero());
}

// A point is the training module's own per-layer price: the difference between a 3- and a 2-layer
// step of `train::Simulate` (compute + tensor-parallel time) on the same layout.
TEST(Scalability, PricesALayerAsTrainDoes) {
  Workload w = testing::SingleChain(2, 4, 512);
  w.modules[0].shape = testing::Shape(2, 2048, 16, model::Arch::kDecoder);
  w.modules[0].shape.vocab = 32000;
  const MetaGraph g = Graph(w);
  const ScalabilityEstimator est(testing::Ctx(), {});
  const std::optional<ScalePoint> p = est.Price(g.ops[0], w, {1, 2});
  ASSERT_TRUE(p);
  double t[2];
  for (int i = 0; i < 2; ++i) {
    train::TrainOptions o;
    o.model = w.modules[0].shape;
    o.model.layers = 2 + i;
    o.hardware = testing::DgxA100(2);
    o.training.seq_len = 512;
    o.training.global_batch = 4;
    o.training.micro_batch = 4;
    o.parallel.tp = 2;
    o.parallel.sequence_parallel = true;
    auto r = train::Simulate(o, testing::Cat(), nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    t[i] = r->breakdown.compute_s + r->breakdown.tp_comm_s;
  }
  EXPECT_NEAR(p->total().ToSeconds(), t[1] - t[0], 2e-9);
}

}  // namespace
}  // namespace dlsim::multitask
