// The serving engine's CPU time (serve/engine_host.h): the step rule in closed form, what it adds to one
// request's TTFT and TPOT, the profiles held to their sourced data file, and the scenario keys.
#include "dlsim/serve/engine_host.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "dlsim/core/csv.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;
using testing::OneRequest;

EngineHost Host(double step_us, double per_request_us, bool async, double first_token_us, int steps = 1) {
  return {.step = Micros(step_us),
          .per_request = Micros(per_request_us),
          .async_output = async,
          .first_token = Micros(first_token_us),
          .scheduler_steps = steps};
}

TEST(EngineHost, StepWallInClosedForm) {
  const EngineHost sync = Host(4000, 100, false, 0);
  EXPECT_EQ(sync.StepWall(Millis(10), 8, true, false), Millis(10) + Micros(4000) + Micros(800));
  EXPECT_EQ(sync.StepWall(Millis(10), 8, false, false), Millis(10) + Micros(800));
  const EngineHost async = Host(4000, 100, true, 0);
  // Output processing of 8 requests (0.8 ms) hides behind 10 ms of GPU work; 200 requests (20 ms) do not.
  EXPECT_EQ(async.StepWall(Millis(10), 8, true, false), Millis(10) + Micros(4000));
  EXPECT_EQ(async.StepWall(Millis(10), 200, true, false), Millis(20) + Micros(4000));
  EXPECT_EQ(EngineHost{}.StepWall(Millis(10), 200, true, false), Millis(10));
  // Multi-step 4: a decode-only step carries a quarter of its requests' output processing.
  const EngineHost multi = Host(4000, 100, false, 0, 4);
  EXPECT_EQ(multi.StepWall(Millis(10), 8, false, true), Millis(10) + Micros(200));
  EXPECT_EQ(multi.StepWall(Millis(10), 8, true, false), Millis(10) + Micros(4800));
}

// Asynchronous scheduling (vllm-0.14): the step's CPU work (4 ms + 8 x 0.1 ms) runs while the GPU computes,
// so only what exceeds the GPU's 10 ms shows; with 200 requests (4 + 20 ms) the CPU is the step.
TEST(EngineHost, AsyncSchedulingOverlapsTheStepWithTheGpu) {
  EngineHost h = Host(4000, 100, true, 0);
  h.async_scheduling = true;
  EXPECT_EQ(h.StepWall(Millis(10), 8, true, false), Millis(10));
  EXPECT_EQ(h.StepWall(Millis(10), 200, true, false), Millis(24));
  EXPECT_EQ(h.StepWall(Millis(1), 8, true, false), Micros(4800));
  EXPECT_EQ(h.StepWall(Millis(1), 8, false, false), Millis(1));
  auto v014 = FindEngine("vllm-0.14");
  ASSERT_TRUE(v014.ok());
  EXPECT_TRUE((*v014)->host.async_scheduling);
  EXPECT_FALSE((*FindEngine("vllm-v1"))->host.async_scheduling);
  EXPECT_EQ((*v014)->host.step, (*FindEngine("vllm-v1"))->host.step);
}

// The serving path (vllm-0.5 / 0.6's AsyncLLMEngine streaming, PR #8092) runs on the engine's loop: 8
// requests x 0.2 ms are paid in full whether output processing is synchronous, asynchronous or scheduled
// ahead, and a multi-step run of 4 streams once (a quarter per decode step).
TEST(EngineHost, StreamingIsPaidOnTheEngineLoop) {
  for (bool async : {false, true}) {
    EngineHost h = Host(4000, 100, async, 0);
    const Duration without = h.StepWall(Millis(10), 8, true, false);
    h.stream = Micros(200);
    EXPECT_EQ(h.StepWall(Millis(10), 8, true, false), without + Micros(1600)) << async;
    h.async_scheduling = true;
    EXPECT_EQ(h.StepWall(Millis(10), 8, true, false), Millis(10) + Micros(1600)) << async;
  }
  EngineHost multi = Host(4000, 0, false, 0, 4);
  multi.stream = Micros(200);
  EXPECT_EQ(multi.StepWall(Millis(10), 8, false, true), Millis(10) + Micros(400));
  EXPECT_EQ(multi.StepWall(Millis(10), 8, true, false), Millis(10) + Micros(4000) + Micros(1600));
  EXPECT_TRUE((EngineHost{.stream = Micros(1)}).any());
  for (const char* engine : {"vllm-0.5", "vllm-0.6"})
    EXPECT_EQ((*FindEngine(engine))->host.stream, Micros(194)) << engine;
  EXPECT_EQ((*FindEngine("vllm-v1"))->host.stream, Duration());
}

TEST(EngineHost, MultiStepPaysTheSchedulerOncePerRun) {
  const EngineHost h = Host(4000, 0, false, 0, 4);
  int run_left = 0;
  std::string pattern;
  for (bool decode_only : {true, true, true, true, true, true, false, true, true})
    pattern += h.PaysStep(decode_only, &run_left) ? 'P' : '.';
  // Runs of four decode steps; a prefill step always pays and ends the run.
  EXPECT_EQ(pattern, "P...P.PP.");
}

// One request alone, a constant GPU cost (prefill 0.1 s, decode 10 ms per token): the engine's CPU time adds
// step + per_request to every step and the first-token path to TTFT and end-to-end, not to TPOT.
TEST(EngineHost, OneRequestPaysEveryStepAndTheFirstTokenPath) {
  ServeOptions o = OneRequest(21);
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto run = [&](const EngineHost& h) {
    o.engine_host = h;
    auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return *r;
  };
  const ServeResult none = run(EngineHost{});
  const ServeResult sync = run(Host(4000, 100, false, 20000));
  const RequestRecord &a = none.records[0], &b = sync.records[0];
  EXPECT_NEAR(b.ttft_s - a.ttft_s, 0.0041 + 0.020, 1e-9);
  EXPECT_NEAR(b.tpot_s - a.tpot_s, 0.0041, 1e-9);
  EXPECT_NEAR(b.e2e_s - a.e2e_s, 21 * 0.0041 + 0.020, 1e-9);
  EXPECT_NEAR(sync.metrics.engine_cpu_s, 21 * 0.0041, 1e-9);
  EXPECT_NEAR(sync.metrics.itl_s.mean - none.metrics.itl_s.mean, 0.0041, 1e-9);  // the path shifts, no gap
  // Multi-step 4: the 20 decode steps pay the scheduler 5 times and a quarter of the output processing each;
  // async output hides the output processing altogether.
  const ServeResult multi = run(Host(4000, 100, false, 0, 4));
  EXPECT_NEAR(multi.records[0].tpot_s - a.tpot_s, 5 * 0.004 / 20 + 0.0001 / 4, 1e-9);
  EXPECT_NEAR(multi.records[0].ttft_s - a.ttft_s, 0.0041, 1e-9);
  const ServeResult multi_async = run(Host(4000, 100, true, 0, 4));
  EXPECT_NEAR(multi_async.records[0].tpot_s - a.tpot_s, 5 * 0.004 / 20, 1e-9);
  EXPECT_NEAR(multi_async.records[0].ttft_s - a.ttft_s, 0.004, 1e-9);
}

// `o` served without CPU time, once with single steps and once in runs of 4, each prefill token 1 ms and each
// decode step 10 ms.
std::pair<Result<ServeResult>, Result<ServeResult>> SingleAndFourSteps(ServeOptions o) {
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  o.engine_host = EngineHost{};
  auto single = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  o.engine_host = Host(0, 0, false, 0, 4);
  return {std::move(single), Simulate(o, *cost, Env().env->schedulers, Env().env->routers)};
}

// Multi-step streams a run's tokens together: one request of 10 decode steps under runs of 4 sees three
// chunks (gaps of 4, 4 and 2 steps: benchmark_serving's ITL entries), and finishes when the last chunk
// streams, so its TPOT and end-to-end do not change.
TEST(EngineHost, MultiStepStreamsEachRunAsOneChunk) {
  ServeOptions o = OneRequest(11);
  auto [single, multi] = SingleAndFourSteps(o);
  ASSERT_TRUE(single.ok() && multi.ok());
  EXPECT_EQ(single->metrics.itl_gaps, 10);
  EXPECT_EQ(multi->metrics.itl_gaps, 3);
  EXPECT_NEAR(multi->records[0].itl_max_s, 0.040, 1e-9);
  EXPECT_NEAR(multi->metrics.itl_s.mean, (0.040 + 0.040 + 0.020) / 3, 1e-9);
  EXPECT_NEAR(multi->records[0].tpot_s, single->records[0].tpot_s, 1e-12);
  EXPECT_NEAR(multi->records[0].e2e_s, single->records[0].e2e_s, 1e-12);
}

// vLLM 0.6's asynchronous output processing streams step N's outputs when step N+1 ends (EngineHost::
// async_output_lags): one request of 100 prompt tokens (1 ms each) and 10 decode steps (10 ms each) sees its
// first token at 110 ms, not 100; its last token streams at once (nothing is left to run), so it finishes at
// 200 ms either way and its TPOT is (200 - 110) / 10. Two requests in flight: the first one's last token
// waits for the second one's next step. Without async_output nothing lags; the profiles: only vllm-0.6 lags.
TEST(EngineHost, Vllm06StreamsEachStepWhenTheNextEnds) {
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto run = [&](ServeOptions o, bool async) {
    EngineHost h = Host(0, 0, async, 0);
    h.async_output_lags = true;
    o.engine_host = h;
    auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return *r;
  };
  const ServeResult lag = run(OneRequest(11), true);
  EXPECT_NEAR(lag.records[0].ttft_s, 0.110, 1e-9);
  EXPECT_NEAR(lag.records[0].e2e_s, 0.200, 1e-9);
  EXPECT_NEAR(lag.records[0].tpot_s, 0.009, 1e-9);
  const ServeResult plain = run(OneRequest(11), false);
  EXPECT_NEAR(plain.records[0].ttft_s, 0.100, 1e-9);
  EXPECT_NEAR(plain.records[0].tpot_s, 0.010, 1e-9);
  ServeOptions two = OneRequest(3);
  two.workload.trace = {{0.0, 100, 3}, {0.0, 100, 11}};  // prefilled together (200 ms), then decode together
  const ServeResult both = run(two, true);
  EXPECT_NEAR(both.records[0].ttft_s, 0.210, 1e-9);
  EXPECT_NEAR(both.records[0].e2e_s, 0.230, 1e-9);  // last token at 220 ms, streamed with the next step
  EXPECT_NEAR(both.records[1].e2e_s, 0.300, 1e-9);  // the last request: streamed at once
  EXPECT_TRUE((*FindEngine("vllm-0.6"))->host.async_output_lags);
  EXPECT_FALSE((*FindEngine("vllm-0.5"))->host.async_output_lags);
  EXPECT_FALSE((*FindEngine("vllm-v1"))->host.async_output_lags);
}

// vLLM's multi-step engine schedules once per run and the run keeps its batch (LLMEngine.step skips
// schedule() while the batch has steps left): a request arriving 15 ms into a run of four 10 ms decode steps
// waits for the run's end (25 ms) before its 100 ms prefill; with single steps it waits for the step's end (5
// ms).
TEST(EngineHost, MultiStepAdmitsNewRequestsOnlyBetweenRuns) {
  ServeOptions o = OneRequest(11);
  o.workload.trace = {{0.0, 100, 11}, {0.115, 100, 11}};
  auto [single, multi] = SingleAndFourSteps(o);
  ASSERT_TRUE(single.ok() && multi.ok());
  EXPECT_NEAR(single->records[1].ttft_s, 0.005 + 0.100, 1e-9);
  EXPECT_NEAR(multi->records[1].ttft_s, 0.025 + 0.100, 1e-9);
  EXPECT_NEAR(multi->records[0].ttft_s, 0.100, 1e-9);
}

// A run whose requests all finish before its last step ends there (vLLM schedules again once the batch is
// empty): one request of 10 decode steps leaves its third run of 4 after 2 steps, and a request arriving
// later is prefilled at once. Before this held, the replica kept the unfinished run's cap of 0 running
// requests and never served again (found on ShareGPT lengths, docs/validation.md "serving-vllm-public").
TEST(EngineHost, MultiStepRunEndsWhenItsRequestsFinish) {
  ServeOptions o = OneRequest(11);
  o.workload.trace = {{0.0, 100, 11}, {0.5, 100, 11}};
  auto [single, multi] = SingleAndFourSteps(o);
  ASSERT_TRUE(single.ok() && multi.ok()) << multi.error().message;
  ASSERT_EQ(multi->records.size(), 2u);
  EXPECT_NEAR(multi->records[1].ttft_s, 0.100, 1e-9);
  EXPECT_NEAR(multi->records[1].e2e_s, single->records[1].e2e_s, 1e-12);
}

// Without `engine_host:` a run takes its engine's profile; `default` has none, so existing results stand.
TEST(EngineHost, RunsTakeTheirEnginesProfile) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  EXPECT_FALSE(HostOf(o).any());
  o.engine = "vllm-0.5";
  EXPECT_EQ(HostOf(o).step, Micros(6089));
  EXPECT_FALSE(HostOf(o).async_output);
  o.engine = "vllm-0.6";
  EXPECT_TRUE(HostOf(o).async_output);
  o.engine_host = EngineHost{};
  EXPECT_FALSE(HostOf(o).any());
}

// Every profile's CPU times are the sourced values of data/serving/engine_host.csv (engine, key, value,
// unit, source, derivation), and every measured key there is in a profile.
TEST(EngineHost, ProfilesHoldTheSourcedValues) {
  std::ifstream f(std::string(DLSIM_DATA_DIR) + "/serving/engine_host.csv");
  ASSERT_TRUE(f) << "data/serving/engine_host.csv";
  std::stringstream text;
  text << f.rdbuf();
  auto table = ParseCsv(text.str(), "engine_host.csv");
  ASSERT_TRUE(table.ok()) << table.error().message;
  int rows = 0;
  for (size_t i = 0; i < table->rows.size(); ++i) {
    const auto& row = table->rows[i];
    auto e = FindEngine(row.at(0));
    ASSERT_TRUE(e.ok()) << row.at(0);
    const EngineHost& h = (*e)->host;
    const std::string& key = row.at(1);
    const double v = std::stod(row.at(2));
    EXPECT_FALSE(row.at(4).empty()) << "a value without a source: " << row.at(0) << " " << key;
    if (key == "step_us")
      EXPECT_NEAR(h.step.ToMicros(), v, 1e-3) << row.at(0);
    else if (key == "per_request_us")
      EXPECT_NEAR(h.per_request.ToMicros(), v, 1e-3) << row.at(0);
    else if (key == "stream_us")
      EXPECT_NEAR(h.stream.ToMicros(), v, 1e-3) << row.at(0);
    else if (key == "first_token_us")
      EXPECT_NEAR(h.first_token.ToMicros(), v, 1e-3) << row.at(0);
    else if (key == "async_output")
      EXPECT_EQ(h.async_output, v != 0) << row.at(0);
    else if (key == "async_scheduling")
      EXPECT_EQ(h.async_scheduling, v != 0) << row.at(0);
    else
      ADD_FAILURE() << "unknown key " << key;
    ++rows;
  }
  EXPECT_GE(rows, 12);
}

Result<ServeOptions> Parse(const std::string& extra) {
  const std::string yaml =
      "model: {name: llama3-8b}\nhardware: {gpu: h100-sxm5-80gb}\nengine: vllm-0.6\n"
      "workload: {rate: 1, requests: 10}\n" +
      extra;
  return testing::ParseScenario(yaml);
}

TEST(EngineHost, ScenarioKeysOverrideTheProfile) {
  auto o = Parse("engine_host: {scheduler_steps: 8, first_token_ms: 12, stream_us: 0}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  const EngineHost h = HostOf(*o);
  EXPECT_EQ(h.scheduler_steps, 8);
  EXPECT_EQ(h.stream, Duration());  // an offline run: no serving path
  EXPECT_EQ(h.first_token, Millis(12));
  EXPECT_EQ(h.step, Micros(4000));  // the profile's
  EXPECT_TRUE(h.async_output);
  // A calibration file's values sit between the profile's and the scenario's keys.
  o->engine_calibrations = {{.engine = "vllm-0.6", .step_us = 2500, .first_token_us = 30000},
                            {.engine = "vllm-v1", .step_us = 1}};
  EXPECT_EQ(HostOf(*o).step, Micros(2500));
  EXPECT_EQ(HostOf(*o).first_token, Millis(12));  // the scenario's key wins
  EXPECT_EQ(HostOf(*o).per_request, Micros(103));
  auto none = Parse("");
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(HostOf(*none).step, Micros(4000));
  EXPECT_EQ(HostOf(*none).scheduler_steps, 1);
  none->engine_calibrations = {{.engine = "vllm-0.6", .stream_us = 50}};  // written by hand: the fit keeps it
  EXPECT_EQ(HostOf(*none).stream, Micros(50));
  EXPECT_EQ(HostOf(*o).stream, Duration());  // the scenario's key wins
}

TEST(EngineHost, BadKeysAreErrorsAtTheKey) {
  for (const char* bad : {"engine_host: {step_ms: -1}\n", "engine_host: {scheduler_steps: 0}\n",
                          "engine_host: {per_request_us: 1e400}\n", "engine_host: {async_output: 3}\n",
                          "engine_host: {stream_us: -3}\n", "engine_host: {steps: 4}\n"}) {
    auto o = Parse(bad);
    ASSERT_FALSE(o.ok()) << bad;
    EXPECT_NE(o.error().message.find("s.yaml:5"), std::string::npos) << o.error().message;
  }
}

}  // namespace
}  // namespace dlsim::serve
