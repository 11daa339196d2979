// The intervals of a run's predicted mean TPOT, mean TTFT and request throughput
// (serve/prediction_interval.h): which regime a scenario falls in, the widening outside it, and a figure
// without a regime or a value.
#include "dlsim/serve/prediction_interval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace dlsim::serve {
namespace {

cost::PredictionIntervals Table() {
  cost::PredictionIntervals t;
  t.level = 0.8;
  t.outside_widen = 1.5;
  t.regimes.push_back({"fitted-stack", 0.9, 1.1, 7, 700, "training", {}, {}, {}});
  cost::IntervalRegime serving{"serving", 0.8, 2.0, 3, 8, "vLLM on H100", {}, {}, {}};
  serving.engines = {"vllm-0.14", "vllm-0.5", "vllm-0.6"};
  serving.gpus = {"h100-sxm5-80gb"};
  t.regimes.push_back(serving);
  cost::IntervalRegime ttft{"serving-ttft", 0.5, 1.5, 4, 18, "vLLM TTFT", {}, {}, {}};
  ttft.engines = {"vllm-0.6"};
  ttft.gpus = {"a100-sxm4-80gb", "h100-sxm5-80gb"};
  t.regimes.push_back(ttft);
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
  r.metrics.requests_completed = 100;
  r.metrics.ttft_s.mean = 0.2;
  r.metrics.throughput_requests_per_s = 4;
  return r;
}

std::optional<MetricInterval> TpotIntervalOf(const ServeOptions& o, ServeResult r,
                                             const cost::PredictionIntervals& t) {
  AttachIntervals(o, t, r);
  return r.tpot_interval;
}

// The regime's engines on its GPU (the engines and GPUs of the rows behind it).
TEST(TpotInterval, TheRowsEnginesOnTheirGpuTakeTheServingRegime) {
  for (const char* engine : {"vllm-0.5", "vllm-0.6", "vllm-0.14"}) {
    auto iv = TpotIntervalOf(Options(engine, "h100-sxm5-80gb"), RunWithTpot(0.010), Table());
    ASSERT_TRUE(iv.has_value()) << engine;
    EXPECT_DOUBLE_EQ(iv->low, 0.008);
    EXPECT_DOUBLE_EQ(iv->high, 0.020);
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
    EXPECT_NEAR(iv->low, 0.010 * std::pow(0.8, 1.5), 1e-12);
    EXPECT_NEAR(iv->high, 0.010 * std::pow(2.0, 1.5), 1e-12);
    EXPECT_EQ(iv->regime, "outside");
    EXPECT_TRUE(iv->outside);
  }
  // A validated engine and GPU with a weight format no validation run served: 4-bit or sparse weights.
  ServeOptions int4 = Options("vllm-0.6", "h100-sxm5-80gb"), sparse = int4;
  int4.weight_quant = WeightQuant::kInt4;
  sparse.weight_sparsity = 0.8;
  for (const ServeOptions& o : {int4, sparse}) {
    auto iv = TpotIntervalOf(o, RunWithTpot(0.010), Table());
    ASSERT_TRUE(iv.has_value());
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
  training_only.regimes.resize(1);  // fitted-stack alone
  EXPECT_FALSE(TpotIntervalOf(o, RunWithTpot(0.010), training_only).has_value());
  ServeResult r = RunWithTpot(0.010);
  AttachIntervals(o, training_only, r);
  EXPECT_FALSE(r.ttft_interval.has_value() || r.throughput_interval.has_value());
}

// Each figure takes its own regime, with that regime's engines and GPUs: the table has a TTFT regime (vLLM
// 0.6 on A100 and H100) and no throughput regime, so the throughput carries none.
TEST(ServeIntervals, EachFigureTakesItsOwnRegime) {
  ServeResult r = RunWithTpot(0.010);
  AttachIntervals(Options("vllm-0.6", "h100-sxm5-80gb"), Table(), r);
  ASSERT_TRUE(r.ttft_interval.has_value());
  EXPECT_DOUBLE_EQ(r.ttft_interval->low, 0.1);
  EXPECT_DOUBLE_EQ(r.ttft_interval->high, 0.3);
  EXPECT_EQ(r.ttft_interval->regime, "serving-ttft");
  EXPECT_FALSE(r.throughput_interval.has_value());
  AttachIntervals(Options("vllm-0.5", "h100-sxm5-80gb"), Table(), r);  // TPOT's engines, not TTFT's
  EXPECT_EQ(r.tpot_interval->regime, "serving");
  ASSERT_TRUE(r.ttft_interval.has_value());
  EXPECT_TRUE(r.ttft_interval->outside);
  EXPECT_NEAR(r.ttft_interval->high, 0.2 * std::pow(1.5, 1.5), 1e-12);
  cost::PredictionIntervals with_throughput = Table();
  with_throughput.regimes.push_back({"serving-throughput", 0.7, 1.2, 4, 14, "vLLM requests/s", {}, {}, {}});
  AttachIntervals(Options("vllm-0.6", "h100-sxm5-80gb"), with_throughput, r);
  ASSERT_TRUE(r.throughput_interval.has_value());
  EXPECT_TRUE(r.throughput_interval->outside);  // the regime lists no engine
  EXPECT_NEAR(r.throughput_interval->low, 4 * std::pow(0.7, 1.5), 1e-12);
  r.metrics.requests_completed = 0;  // nothing completed: no TTFT, no throughput
  AttachIntervals(Options("vllm-0.6", "h100-sxm5-80gb"), with_throughput, r);
  EXPECT_FALSE(r.ttft_interval.has_value());
  EXPECT_FALSE(r.throughput_interval.has_value());
  EXPECT_TRUE(r.tpot_interval.has_value());
}

// An open loop finishes its requests no sooner than the last arrives: 100 requests arriving over 25 s
// complete at most 4 per second, so a run at 3.9 req/s (below capacity) gets an upper bound of 4, not 3.9
// x 1.2. A closed loop sends its requests as slots free, so its sends bound nothing.
TEST(ServeIntervals, AnOpenLoopsThroughputEndsAtItsArrivalRate) {
  cost::PredictionIntervals t = Table();
  cost::IntervalRegime throughput{"serving-throughput", 0.8, 1.2, 1, 14, "vLLM requests/s", {}, {}, {}};
  throughput.engines = {"vllm-0.6"};
  throughput.gpus = {"h100-sxm5-80gb"};
  t.regimes.push_back(throughput);
  ServeResult r = RunWithTpot(0.010);
  r.metrics.throughput_requests_per_s = 3.9;
  r.metrics.arrival_span_s = 25;
  ServeOptions o = Options("vllm-0.6", "h100-sxm5-80gb");
  AttachIntervals(o, t, r);
  ASSERT_TRUE(r.throughput_interval.has_value());
  EXPECT_DOUBLE_EQ(r.throughput_interval->low, 3.9 * 0.8);
  EXPECT_DOUBLE_EQ(r.throughput_interval->high, 4.0);
  r.metrics.arrival_span_s = 0;  // all at once
  AttachIntervals(o, t, r);
  EXPECT_DOUBLE_EQ(r.throughput_interval->high, 3.9 * 1.2);
  r.metrics.arrival_span_s = 25;
  o.workload.concurrency = 8;
  AttachIntervals(o, t, r);
  EXPECT_DOUBLE_EQ(r.throughput_interval->high, 3.9 * 1.2);
}

}  // namespace
}  // namespace dlsim::serve
