// The interval of a predicted mean TPOT (serve/prediction_interval.h): which regime a scenario falls in, and
// the widening outside it.
#include "dlsim/serve/prediction_interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim::serve {
namespace {

cost::PredictionIntervals Table() {
  cost::PredictionIntervals t;
  t.level = 0.8;
  t.outside_widen = 1.5;
  t.regimes.push_back({"fitted-stack", 0.9, 1.1, 7, 700, "training"});
  cost::IntervalRegime serving{"serving", 0.8, 2.0, 3, 8, "vLLM on H100"};
  serving.engines = {"vllm-0.14", "vllm-0.5", "vllm-0.6"};
  serving.gpus = {"h100-sxm5-80gb"};
  t.regimes.push_back(serving);
  return t;
}

ServeOptions Options(const std::string& engine, const std::string& gpu) {
  ServeOptions o;
  o.engine = engine;
  o.gpu.name = gpu;
  return o;
}

ServeResult RunWithTpot(double tpot_s, int64_t tpot_requests = 100) {
  ServeResult r;
  r.metrics.tpot_s.mean = tpot_s;
  r.metrics.tpot_requests = tpot_requests;
  return r;
}

// The regime's engines on its GPU (the engines and GPUs of the rows behind it).
TEST(TpotInterval, TheRowsEnginesOnTheirGpuTakeTheServingRegime) {
  for (const char* engine : {"vllm-0.5", "vllm-0.6", "vllm-0.14"}) {
    auto iv = TpotIntervalOf(Options(engine, "h100-sxm5-80gb"), RunWithTpot(0.010), Table());
    ASSERT_TRUE(iv.has_value()) << engine;
    EXPECT_DOUBLE_EQ(iv->low_s, 0.008);
    EXPECT_DOUBLE_EQ(iv->high_s, 0.020);
    EXPECT_EQ(iv->regime, "serving");
    EXPECT_FALSE(iv->outside);
    EXPECT_DOUBLE_EQ(iv->level, 0.8);
  }
}

// Another engine (the GPU alone, SGLang, vllm-v1, whose rows moved to vllm-0.14) or another GPU (an H200
// too): no validation run covers it, so the serving interval's log-width is widened 1.5 x on both sides and
// the result says so.
TEST(TpotInterval, EverythingElseIsOutsideAndWidened) {
  for (const auto& [engine, gpu] :
       {std::pair{"default", "h100-sxm5-80gb"}, std::pair{"sglang", "h100-sxm5-80gb"},
        std::pair{"vllm-v1", "h100-sxm5-80gb"}, std::pair{"vllm-0.14", "a100-sxm4-80gb"},
        std::pair{"vllm-0.14", "h200-sxm-141gb"}, std::pair{"vllm-0.6", "b200-sxm-180gb"}}) {
    auto iv = TpotIntervalOf(Options(engine, gpu), RunWithTpot(0.010), Table());
    ASSERT_TRUE(iv.has_value()) << engine << " " << gpu;
    EXPECT_NEAR(iv->low_s, 0.010 * std::pow(0.8, 1.5), 1e-12);
    EXPECT_NEAR(iv->high_s, 0.010 * std::pow(2.0, 1.5), 1e-12);
    EXPECT_EQ(iv->regime, "outside");
    EXPECT_TRUE(iv->outside);
  }
}

TEST(TpotInterval, NoneWithoutATpotOrAServingRegime) {
  const ServeOptions o = Options("vllm-0.14", "h100-sxm5-80gb");
  EXPECT_FALSE(TpotIntervalOf(o, RunWithTpot(0.010, /*tpot_requests=*/0), Table()).has_value());
  EXPECT_FALSE(TpotIntervalOf(o, RunWithTpot(0.0), Table()).has_value());
  EXPECT_FALSE(TpotIntervalOf(o, RunWithTpot(NAN), Table()).has_value());
  ServeResult infeasible = RunWithTpot(0.010);
  infeasible.feasible = false;
  EXPECT_FALSE(TpotIntervalOf(o, infeasible, Table()).has_value());
  cost::PredictionIntervals training_only = Table();
  training_only.regimes.pop_back();
  EXPECT_FALSE(TpotIntervalOf(o, RunWithTpot(0.010), training_only).has_value());
}

}  // namespace
}  // namespace dlsim::serve
