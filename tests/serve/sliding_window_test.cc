// Sliding-window models served (issue 37): the KV blocks a windowed request holds in closed form, the pairs
// and context the scheduler hands the cost model, how each engine profile runs an interleaved model (vLLM
// 0.5/0.6 disable the window, V1 computes it but keeps every token's KV, 0.14's hybrid KV cache manager frees
// what leaves the window), and what the window buys a long-context decode end to end.
#include <gtest/gtest.h>

#include "dlsim/cost/compute_model.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/kv_cache.h"
#include "dlsim/serve/scheduler.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

TEST(SlidingWindowKv, BlocksOfAWindowedRequestInClosedForm) {
  KvCache kv(1000, 16, 0);
  EXPECT_EQ(kv.BlocksFor(5000), 313);
  kv.SetWindow(1024, 1.0);  // every layer windowed: the window's 1,023 earlier tokens span at most 65 blocks
  EXPECT_EQ(kv.BlocksFor(100), 7);
  EXPECT_EQ(kv.BlocksFor(1024), 64);
  EXPECT_EQ(kv.BlocksFor(1040), 65);
  EXPECT_EQ(kv.BlocksFor(5000), 65);
  kv.SetWindow(1024, 5.0 / 6);         // Gemma 3: one layer in six keeps every token
  EXPECT_EQ(kv.BlocksFor(5000), 107);  // ceil(313 / 6 + 65 x 5 / 6) = ceil(106.33)
  int64_t last = 0;
  for (int64_t t = 0; t <= 4000; ++t) {
    EXPECT_GE(kv.BlocksFor(t), last) << t;
    last = kv.BlocksFor(t);
  }
  kv.SetWindow(0, 1.0);
  EXPECT_EQ(kv.BlocksFor(5000), 313);
}

TEST(SlidingWindowKv, SchedulerCountsThePairsAndContextThroughTheWindow) {
  Request r;
  r.kv_tokens = 100;
  Batch b;
  AddPrefillChunk(r, 0, 50, b, 120);  // queries see 101..150 keys, at most 120
  EXPECT_DOUBLE_EQ(b.shape.prefill_pairs, 50.0 * 100 + 50.0 * 51 / 2);
  EXPECT_DOUBLE_EQ(b.shape.prefill_window_pairs, cost::CappedSum(101, 150, 120));
  EXPECT_DOUBLE_EQ(b.shape.prefill_window_pairs, (101.0 + 120) * 20 / 2 + 30 * 120);
  AddDecode(r, 1, b, 0, 64);
  AddDecode(r, 2, b, 0, 0);  // no window: nothing through one
  EXPECT_EQ(b.shape.decode_context, 2 * 101);
  EXPECT_EQ(b.shape.decode_window_context, 64);
}

TEST(SlidingWindowEngines, EachProfileRunsAnInterleavedModelAsItsReleaseDoes) {
  model::ModelSpec gemma = *Env().catalogs.models.Find("gemma-3-27b").value();
  ASSERT_EQ(gemma.sliding_window, 1024);
  ASSERT_EQ(gemma.WindowedLayers(), 52);  // 62 layers, every sixth global
  auto of = [&](const char* engine, const model::ModelSpec& m) { return (*FindEngine(engine))->WindowOf(m); };
  for (const char* old : {"vllm-0.5", "vllm-0.6"}) EXPECT_EQ(of(old, gemma).window, 0) << old;
  const WindowedAttention v1 = of("vllm-v1", gemma);
  EXPECT_EQ(v1.window, 1024);
  EXPECT_NEAR(v1.compute_share, 52.0 / 62, 1e-12);
  EXPECT_EQ(v1.kv_share, 0);
  const WindowedAttention v014 = of("vllm-0.14", gemma);
  EXPECT_NEAR(v014.kv_share, 52.0 / 62, 1e-12);
  // A model windowed in every layer keeps its window in every release (V0's block manager, V1's PR #14097).
  const model::ModelSpec mistral = *Env().catalogs.models.Find("mistral-7b-v0.1").value();
  for (const EngineProfile& e : EngineProfiles()) {
    const WindowedAttention w = e.WindowOf(mistral);
    EXPECT_EQ(w.window, 4096) << e.name;
    EXPECT_EQ(w.kv_share, 1.0) << e.name;
  }
  EXPECT_EQ(of("vllm-0.14", *Env().catalogs.models.Find("llama3-8b").value()).window, 0);
}

// vLLM 0.5/0.6 run Gemma 2's interleaved window as global attention and cap its context to the 4,096-token
// window (PR #5908): a longer request is an infeasible result naming the cap; V1 and 0.14 serve it.
TEST(SlidingWindowEngines, OldEnginesCapAnInterleavedModelsContextToItsWindow) {
  auto run = [](const char* engine, int prompt) {
    ServeOptions o = BaseOptions("gemma-2-9b", "h100-sxm5-80gb");
    o.engine = engine;
    o.workload.arrival = ArrivalKind::kTrace;
    o.workload.trace = {{0.0, prompt, 100}, {0.1, 1000, 100}};
    auto r = Simulate(o, Env().catalogs, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return *r;
  };
  const ServeResult capped = run("vllm-0.6", 6000);
  EXPECT_FALSE(capped.feasible);
  EXPECT_NE(capped.reason.find("1 of 2 requests are longer than vllm-0.6 serves gemma-2-9b"),
            std::string::npos)
      << capped.reason;
  EXPECT_NE(capped.reason.find("4096-token window"), std::string::npos) << capped.reason;
  EXPECT_TRUE(run("vllm-0.6", 3000).feasible);
  EXPECT_TRUE(run("vllm-0.14", 6000).feasible);
  EXPECT_TRUE(run("vllm-v1", 6000).feasible);
  // An all-windowed model keeps its window in vLLM 0.6: no cap.
  EXPECT_EQ((*FindEngine("vllm-0.6"))->ContextCapOf(*Env().catalogs.models.Find("mistral-7b-v0.1").value()),
            0);
}

struct LongRun {
  double tpot_ms = 0;
  double peak_kv = 0;  // of the same number of blocks: the models share their shapes
};

// 16 requests of `prompt`-token prompts (16K by default) and 256 outputs at once on one H100.
LongRun RunLong(const model::ModelSpec& m, const char* engine, int prompt = 16384) {
  ServeOptions o = BaseOptions("llama3-8b", "h100-sxm5-80gb");
  o.model = m;
  o.engine = engine;
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace.assign(16, {0.0, prompt, 256});
  auto r = Simulate(o, Env().catalogs, nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->feasible) << r->reason;
  return {r->metrics.tpot_s.mean * 1e3, r->metrics.kv_peak_utilization};
}

TEST(SlidingWindowServing, TheWindowShortensLongContextDecodeAndItsKv) {
  model::ModelSpec windowed = *Env().catalogs.models.Find("mistral-7b-v0.1").value();
  windowed.sliding_window = 1024;  // a window far shorter than the 16K context
  model::ModelSpec global = windowed;
  global.sliding_window = 0;
  const LongRun w = RunLong(windowed, "vllm-0.14"), g = RunLong(global, "vllm-0.14");
  EXPECT_LT(w.tpot_ms, 0.9 * g.tpot_ms) << w.tpot_ms << " vs " << g.tpot_ms;
  EXPECT_LT(w.peak_kv, g.peak_kv / 8) << w.peak_kv << " vs " << g.peak_kv;
  // Interleaved under vLLM 0.6 the window is off (and the context capped to it, so requests of 700 + 256
  // tokens): exactly the global model's run.
  model::ModelSpec interleaved = windowed;
  interleaved.sliding_window_pattern = 2;
  model::ModelSpec interleaved_global = interleaved;
  interleaved_global.sliding_window = interleaved_global.sliding_window_pattern = 0;
  const LongRun off = RunLong(interleaved, "vllm-0.6", 700),
                none = RunLong(interleaved_global, "vllm-0.6", 700);
  EXPECT_DOUBLE_EQ(off.tpot_ms, none.tpot_ms);
  EXPECT_DOUBLE_EQ(off.peak_kv, none.peak_kv);
  // Under 0.14 half the layers keep every token: between the two.
  const LongRun half = RunLong(interleaved, "vllm-0.14");
  EXPECT_LT(half.peak_kv, g.peak_kv);
  EXPECT_GT(half.peak_kv, w.peak_kv);
  EXPECT_LT(half.tpot_ms, g.tpot_ms);
  EXPECT_GT(half.tpot_ms, w.tpot_ms);
}

}  // namespace
}  // namespace dlsim::serve
