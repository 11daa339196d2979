// Closed-form and invariant tests of the serving simulator.
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "dlsim/app/serve_render.h"
#include "dlsim/report/json_report.h"
#include "dlsim/serve/capacity.h"
#include "dlsim/serve/prediction_interval.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;
using testing::Fixed;

// One request at a time (max_batch_size 1), fixed lengths, a constant cost model: an M/D/1
// queue with service S = P * prefill_token + (O - 1) * decode. Pollaczek-Khinchine: the mean
// wait is rho S / (2 (1 - rho)); TTFT = wait + prefill time.
TEST(Simulator, SingleRequestAtATimeIsAnMD1Queue) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.scheduler.max_batch_size = 1;
  o.workload.rate = 2.0;
  o.workload.requests = 200000;
  o.workload.seed = 11;
  o.workload.prompt = Fixed(100);
  o.workload.output = Fixed(21);
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));  // prefill 0.1 s, S = 0.3 s
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const double s = 0.3, rho = o.workload.rate * s;
  const double wait = rho * s / (2 * (1 - rho));
  EXPECT_EQ(r->metrics.requests_completed, o.workload.requests);
  EXPECT_NEAR(r->metrics.ttft_s.mean, wait + 0.1, 0.02 * (wait + 0.1));
  EXPECT_NEAR(r->metrics.tpot_s.mean, 0.010, 1e-9);
  EXPECT_NEAR(r->metrics.e2e_s.mean, wait + s, 0.02 * (wait + s));
  EXPECT_EQ(r->metrics.preemptions, 0);
}

// The progress callback counts completed requests, never goes back and ends at all of them; the result does
// not depend on it.
TEST(Simulator, ProgressCountsCompletedRequestsToTheEnd) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.rate = 50.0;
  o.workload.requests = 20000;
  o.workload.prompt = Fixed(100);
  o.workload.output = Fixed(50);
  const auto cost = MakeConstantCostModel(Micros(100), Millis(1));
  std::vector<std::pair<size_t, size_t>> calls;
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers, nullptr,
                    [&calls](size_t done, size_t total) { calls.emplace_back(done, total); });
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_GE(calls.size(), 3u);  // 20,000 requests of 50 tokens: about a million events
  for (size_t i = 1; i < calls.size(); ++i) EXPECT_GE(calls[i].first, calls[i - 1].first);
  EXPECT_EQ(calls.back(), std::make_pair(size_t{20000}, size_t{20000}));
  auto quiet = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ(quiet->metrics.ttft_s.mean, r->metrics.ttft_s.mean);
}

// Inter-token latency: one request alone has every gap equal to the decode iteration (ITL = TPOT); a
// second request's prefill, run between two decode steps of the first (vLLM prefill-first batching),
// is one long gap of the first's, which TPOT averages away and ITL's maximum and requests.csv keep.
TEST(Simulator, InterTokenLatencyShowsPrefillStalls) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace = {{0.0, 100, 21}};
  o.keep_records = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));  // prefill 0.1 s, decode 10 ms
  auto alone = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_EQ(alone->metrics.itl_gaps, 20);
  EXPECT_NEAR(alone->metrics.itl_s.mean, 0.010, 1e-9);
  EXPECT_NEAR(alone->metrics.itl_s.p99, 0.010, 0.0002);
  EXPECT_NEAR(alone->records[0].itl_max_s, 0.010, 1e-9);
  o.workload.trace = {{0.0, 100, 21}, {0.15, 1000, 2}};  // arrives during the first's decode
  auto two = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(two.ok()) << two.error().message;
  EXPECT_GE(two->records[0].itl_max_s, 1.0);  // the 1000-token prefill (1 s) sits between two of its tokens
  EXPECT_GE(two->metrics.itl_s.max, 1.0);
  EXPECT_LT(two->records[0].tpot_s, 0.1);  // averaged over 20 gaps
}

// Requests that arrive at the same instant are batched together, as an engine's scheduler sees them: the
// first is not prefilled alone while the others wait a whole prefill (issue 37).
TEST(Simulator, RequestsArrivingTogetherArePrefilledTogether) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace = {{1.0, 100, 5}, {1.0, 100, 5}, {1.0, 100, 5}, {1.0, 100, 5}};
  o.keep_records = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));  // 4 x 100 prefill tokens: 0.4 s
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  for (const RequestRecord& rec : r->records) EXPECT_NEAR(rec.ttft_s, 0.4, 1e-9) << rec.id;
}

// A closed loop (workload.concurrency 2, benchmark_serving's --max-concurrency): of four requests ready at 0
// two are sent, prefilled together (200 tokens: 0.2 s) and decoded (4 steps: 0.04 s); the other two are sent
// when those finish (0.24 s) and take the same time from their send, where the open loop prefills all four at
// once (0.4 s). TTFT and end-to-end count from the send, as benchmark_serving's clock does.
TEST(Simulator, ClosedLoopSendsARequestWhenOneFinishes) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace = {{0.0, 100, 5}, {0.0, 100, 5}, {0.0, 100, 5}, {0.0, 100, 5}};
  o.workload.concurrency = 2;
  o.keep_records = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->records.size(), 4u);
  for (const RequestRecord& rec : r->records) {
    EXPECT_NEAR(rec.ttft_s, 0.2, 1e-9) << rec.id;
    EXPECT_NEAR(rec.e2e_s, 0.24, 1e-9) << rec.id;
  }
  EXPECT_NEAR(r->records[2].arrival_s, 0.24, 1e-9);
  EXPECT_NEAR(r->metrics.makespan_s, 0.48, 1e-9);
  o.workload.concurrency = 0;
  auto open = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(open.ok());
  EXPECT_NEAR(open->records[3].ttft_s, 0.4, 1e-9);
}

// A concurrency no smaller than the requests is the open loop, to the byte; below it, Poisson arrivals wait
// for a slot, so no more than `concurrency` requests are ever in flight.
TEST(Simulator, ClosedLoopAtOrAboveTheRequestsIsTheOpenLoop) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.rate = 20;
  o.workload.requests = 300;
  o.workload.seed = 3;
  o.keep_records = true;
  auto open = Simulate(o, Env().catalogs, nullptr);
  o.workload.concurrency = 300;
  auto wide = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(open.ok() && wide.ok());
  EXPECT_EQ(open->metrics.ttft_s.mean, wide->metrics.ttft_s.mean);
  EXPECT_EQ(open->metrics.e2e_s.p99, wide->metrics.e2e_s.p99);
  o.workload.concurrency = 4;
  auto closed = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  std::vector<std::pair<double, int>> events;  // +1 at a send, -1 at a finish
  for (const RequestRecord& rec : closed->records) {
    events.push_back({rec.arrival_s, +1});
    events.push_back({rec.finish_s, -1});
  }
  std::sort(events.begin(), events.end());  // a finish before a send at the same instant
  int in_flight = 0, most = 0;
  for (const auto& [t, d] : events) most = std::max(most, in_flight += d);
  EXPECT_EQ(most, 4);
  EXPECT_GT(closed->metrics.makespan_s, open->metrics.makespan_s);
}

class EverySchedulerTest : public ::testing::TestWithParam<std::tuple<std::string, Preemption>> {};

// A KV cache far too small for the load forces admissions to wait and decodes to preempt:
// blocks are never over-committed and every request finishes exactly once.
TEST_P(EverySchedulerTest, KvNeverOvercommittedAndEveryRequestFinishesOnce) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.scheduler.name = std::get<0>(GetParam());
  o.scheduler.preemption = std::get<1>(GetParam());
  o.hardware.memory_margin = 0.76;  // ~5 GiB of KV
  o.hardware.replicas = 2;
  o.scheduler.router = "least-outstanding-tokens";
  o.workload.rate = 30;
  o.workload.requests = 3000;
  o.workload.prompt.max = 2048;
  o.workload.output.max = 1024;
  o.scheduler.max_seq_len = 3072;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto r = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_TRUE(r->feasible) << r->reason;
  const ServeMetrics& m = r->metrics;
  EXPECT_EQ(m.requests_completed, 3000);
  EXPECT_EQ(m.completions_recorded, 3000);
  EXPECT_EQ(m.kv_overcommits, 0);
  EXPECT_LE(m.kv_peak_utilization, 1.0);
  EXPECT_GT(m.kv_peak_utilization, 0.8);
  if (o.scheduler.name == "vllm") {
    EXPECT_GT(m.preemptions, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(All, EverySchedulerTest,
                         ::testing::Values(std::make_tuple("vllm", Preemption::kRecompute),
                                           std::make_tuple("vllm", Preemption::kSwap),
                                           std::make_tuple("orca", Preemption::kRecompute),
                                           std::make_tuple("sarathi", Preemption::kRecompute),
                                           std::make_tuple("sarathi", Preemption::kSwap),
                                           std::make_tuple("distserve", Preemption::kRecompute)));

TEST(Simulator, SameSeedSameBytes) {
  ServeOptions o = BaseOptions("llama2-7b", "h100-sxm5-80gb");
  o.workload.requests = 2000;
  o.workload.rate = 8;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto a = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  auto b = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(report::DumpDeterministic(app::ServeJson(*a)), report::DumpDeterministic(app::ServeJson(*b)));
  o.workload.seed = 99;
  auto c = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  EXPECT_NE(report::DumpDeterministic(app::ServeJson(*a)), report::DumpDeterministic(app::ServeJson(*c)));
}

// The module entry point (serve/simulate.h) builds the same environment and cost model as the
// explicit path above, so it gives the same bytes, plus the TPOT interval of the catalogs' table (which the
// explicit path, without catalogs, leaves to its caller); an infeasible deployment is a result.
TEST(Simulator, EntryPointMatchesTheExplicitPath) {
  ServeOptions o = BaseOptions("llama2-7b", "h100-sxm5-80gb");
  o.workload.requests = 500;
  o.workload.rate = 8;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok());
  auto a = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  auto b = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(b->tpot_interval.has_value());
  EXPECT_FALSE(a->tpot_interval.has_value());
  AttachIntervals(o, Env().catalogs.intervals, *a);
  EXPECT_EQ(report::DumpDeterministic(app::ServeJson(*a)), report::DumpDeterministic(app::ServeJson(*b)));
  ServeOptions big = BaseOptions("llama2-70b", "a100-sxm4-80gb");
  big.workload.requests = 10;
  auto c = Simulate(big, Env().catalogs, nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->feasible);
  EXPECT_FALSE(c->reason.empty());
}

TEST(Simulator, WeightsThatDoNotFitAreInfeasibleWithAReason) {
  ServeOptions o = BaseOptions("llama2-70b", "a100-sxm4-80gb");
  o.workload.requests = 10;
  auto cost = MakeCostModel(o, *Env().env);
  auto r = Simulate(o, **cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->feasible);
  EXPECT_NE(r->reason.find("weights need"), std::string::npos) << r->reason;
}

// Select-N offloads only what the KV cache needs: less host memory than offloading every
// layer's weights (DeepSpeed ZeRO-Inference), and a larger KV cache than no offloading.
TEST(Offload, SelectNUsesLessHostMemoryThanStaticAndFreesKv) {
  ServeOptions o = BaseOptions("llama2-13b", "a100-sxm4-40gb");
  o.workload.requests = 500;
  o.slo.tpot_s = 0.2;
  auto cost = MakeCostModel(o, *Env().env);
  auto none = PlanMemory(o, **cost);
  o.offload.mode = OffloadMode::kSelectN;
  auto sel = PlanMemory(o, **cost);
  o.offload.mode = OffloadMode::kStatic;
  o.offload.weight_fraction = 1.0;
  auto all = PlanMemory(o, **cost);
  ASSERT_TRUE(none.ok() && sel.ok() && all.ok());
  EXPECT_GT(sel->min_interval, 1);
  EXPECT_GT(sel->kv_blocks, none->kv_blocks);
  EXPECT_LT(sel->offloaded.value(), all->offloaded.value());
  EXPECT_EQ(IntervalStall(4, 40, Millis(1), Millis(2.5)), Duration::Zero());
  EXPECT_EQ(IntervalStall(2, 40, Millis(1), Millis(2.5)), Millis(1.5) * int64_t{20});
}

// The sanity phase: a request that can never run (its KV is larger than a replica's cache) makes
// the run infeasible with a reason; "0 of 20 completed" with 0 ns latencies was a feasible result.
TEST(Sanity, RequestLongerThanTheKvCacheIsInfeasibleWithAReason) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.requests = 20;
  o.workload.prompt = Fixed(500000);
  auto r = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->feasible);
  EXPECT_EQ(r->metrics.requests_total, 20);
  EXPECT_NE(r->reason.find("20 of 20 requests can never run: the longest, of 500000 prompt + "),
            std::string::npos)
      << r->reason;
  EXPECT_NE(r->reason.find("KV blocks of 16 tokens, and a replica holds"), std::string::npos) << r->reason;
  // Orca's reservation alone can be too large.
  o.workload.prompt = Fixed(100);
  o.scheduler.name = "orca";
  o.scheduler.max_seq_len = kMaxTokens;
  auto orca = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(orca.ok()) << orca.error().message;
  EXPECT_FALSE(orca->feasible);
  EXPECT_NE(orca->reason.find("orca reserves scheduler.max_seq_len = 16777216 tokens"), std::string::npos)
      << orca->reason;
}

// Requests that fit wait behind one that never runs (FCFS): the reason counts each kind, instead of
// saying that all the unfinished ones can never run.
TEST(Sanity, RequestsWaitingBehindOneThatNeverRunsAreCountedApart) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace = {{0.0, 100, 10}, {1.0, 500000, 10}, {2.0, 100, 10}, {3.0, 100, 10}};
  auto r = Simulate(o, Env().catalogs, nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_FALSE(r->feasible);
  EXPECT_NE(r->reason.find("1 of 4 requests can never run (2 more waited behind them): the longest, of "
                           "500000 prompt + 10 output tokens, needs 31326 KV blocks"),
            std::string::npos)
      << r->reason;
}

// Many lightly loaded replicas iterate with small batches: the iterations of all replicas are a time
// limit (kMaxIterations), an error naming it, never a partial result.
TEST(Sanity, RunPastTheIterationLimitIsAnError) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.requests = 50;
  o.max_iterations = 100;
  auto r = Simulate(o, Env().catalogs, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("the run needs more than 100 scheduler iterations (a time limit"),
            std::string::npos)
      << r.error().message;
  o.max_iterations = kMaxIterations;
  EXPECT_TRUE(Simulate(o, Env().catalogs, nullptr).ok());
}

// Options built by hand bypass the scenario's ranges: a KV link or PCIe link near zero overflows
// the clock, which is an error, never a negative latency or 100% SLO attainment.
TEST(Sanity, ClockOverflowIsAnErrorNotANegativeLatency) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.requests = 50;
  o.scheduler.name = "distserve";
  o.scheduler.kv_transfer_gbps = 1e-12;
  auto r = Simulate(o, Env().catalogs, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("overflows the clock"), std::string::npos) << r.error().message;
  ServeOptions s = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  s.workload.requests = 5;
  s.offload.mode = OffloadMode::kStatic;
  s.offload.pcie_gbps = 1e-300;
  auto st = Simulate(s, Env().catalogs, nullptr);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("overflows the clock"), std::string::npos) << st.error().message;
}

// GenerateRequests checks the limits of options.h itself (for options built by hand).
TEST(Requests, GenerationStaysInsideTheLimits) {
  WorkloadOptions w;
  w.requests = 100;
  w.rate = 1e-9;  // arrivals at about 1e11 s wrapped the clock into negative hours
  auto slow = GenerateRequests(w);
  ASSERT_FALSE(slow.ok());
  EXPECT_NE(slow.error().message.find("arrives at"), std::string::npos) << slow.error().message;
  w.rate = 4;
  w.requests = kMaxRequests + 1;
  EXPECT_NE(GenerateRequests(w).error().message.find("at most 10000000"), std::string::npos);
  w.requests = 0;
  w.duration_s = 1e-300;  // "0 of 0 requests" with 0 ns latencies
  EXPECT_NE(GenerateRequests(w).error().message.find("no request arrives within duration_s"),
            std::string::npos);
  w.duration_s = 1;
  w.prompt.max = int64_t{1} << 32;
  EXPECT_NE(GenerateRequests(w).error().message.find("allowed: 1..16777216"), std::string::npos);
  w.prompt.max = 1 << 20;
  w.rate = 0;  // a closed loop with every request ready at once needs a count, not a duration
  w.concurrency = 8;
  EXPECT_NE(GenerateRequests(w).error().message.find("with concurrency and no rate give requests"),
            std::string::npos);
  w.concurrency = -1;
  EXPECT_NE(GenerateRequests(w).error().message.find("workload.concurrency: -1"), std::string::npos);
  w.concurrency = 8;
  w.duration_s = 0;
  w.requests = 5;
  auto at_once = GenerateRequests(w);
  ASSERT_TRUE(at_once.ok()) << at_once.error().message;
  EXPECT_EQ(at_once->back().arrival, TimePoint::Start());
}

// A 3e9-token prompt wrapped the 32-bit counter (prefill_tokens 0 in the trace): a trace built by hand
// is checked like the trace file's cells.
TEST(Requests, TraceTokensBeyondTheCountersAreAnError) {
  WorkloadOptions w;
  w.arrival = ArrivalKind::kTrace;
  w.trace = {{0.0, 100, 10}, {0.5, 3'000'000'000, 10}};
  auto r = GenerateRequests(w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("trace request 2 has 3000000000 prompt or output tokens; allowed: "
                                   "1..16777216"),
            std::string::npos)
      << r.error().message;
  w.trace[1].prompt_tokens = 200;
  w.trace[1].output_tokens = 0;
  EXPECT_NE(GenerateRequests(w).error().message.find("has 0 prompt or output tokens"), std::string::npos);
  // Cut at duration_s before its first arrival, the trace has no request ("0 of 0" was a result).
  w.trace = {{6.0, 100, 10}, {5.0, 100, 10}};
  w.duration_s = 1;
  EXPECT_NE(GenerateRequests(w).error().message.find(
                "no request of the trace arrives within duration_s 1 s (the first at 5 s)"),
            std::string::npos);
  w.duration_s = 5.5;  // unsorted rows: the one at 5 s is kept
  auto kept = GenerateRequests(w);
  ASSERT_TRUE(kept.ok()) << kept.error().message;
  EXPECT_EQ(kept->size(), 1u);
}

// 1000 requests of 16M output tokens were 1.6e10 decode steps to simulate (days): the total is a limit.
TEST(Requests, OutputTokensInAllAreBoundedByTheDecodeStepLimit) {
  WorkloadOptions w;
  w.requests = 1000;
  w.output = Fixed(16e6);
  w.output.max = kMaxTokens;
  auto r = GenerateRequests(w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("the 1000 requests generate 16000000000 output tokens in all; at most "
                                   "4294967296 per run (a time limit"),
            std::string::npos)
      << r.error().message;
  w.requests = 200;  // 3.2e9 steps: inside the limit
  EXPECT_TRUE(GenerateRequests(w).ok());
}

// Draws outside [min, max] are clamped before rounding: nan, inf and 1e300 became 1-token prompts.
TEST(Requests, SampleLengthClampsBeforeRounding) {
  Rng rng(1);
  LengthDistribution d = Fixed(1e300);
  d.max = 4096;
  EXPECT_EQ(SampleLength(d, rng), 4096);
  d = Fixed(std::nan(""));
  EXPECT_EQ(SampleLength(d, rng), 1);
  LengthDistribution u;
  u.kind = LengthDistribution::Kind::kUniform;
  u.low = 1;
  u.high = 1e300;
  u.max = 1000;
  for (int i = 0; i < 100; ++i) {
    const int64_t x = SampleLength(u, rng);
    EXPECT_TRUE(x >= 1 && x <= 1000) << x;
  }
  LengthDistribution wide;
  wide.sigma = 1e308;
  wide.max = 2048;
  for (int i = 0; i < 100; ++i) {
    const int64_t x = SampleLength(wide, rng);
    EXPECT_TRUE(x == 1 || x == 2048) << x;
  }
}

// The capacity search reports each probe as it runs (the command's progress lines): every probe, in order, as
// the result lists them.
TEST(Simulator, CapacitySearchReportsEveryProbeInOrder) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.requests = 200;
  auto cost = MakeCostModel(o, *Env().env);
  ASSERT_TRUE(cost.ok()) << cost.error().message;
  std::vector<std::pair<int, CapacityProbe>> seen;
  CapacityOptions c{.target = 0.9, .bisections = 3};
  c.on_probe = [&](int i, const CapacityProbe& p) { seen.emplace_back(i, p); };
  auto cap = FindCapacity(o, **cost, Env().env->schedulers, Env().env->routers, c);
  ASSERT_TRUE(cap.ok()) << cap.error().message;
  ASSERT_EQ(seen.size(), cap->probes.size());
  ASSERT_GT(seen.size(), 3u);
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].first, static_cast<int>(i));
    EXPECT_EQ(seen[i].second.rate_per_replica, cap->probes[i].rate_per_replica);
    EXPECT_EQ(seen[i].second.slo_attainment, cap->probes[i].slo_attainment);
  }
}

}  // namespace
}  // namespace dlsim::serve
