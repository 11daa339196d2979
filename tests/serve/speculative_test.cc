// Speculative decoding (serve/speculative.h, SpeculativeOptions): Leviathan et al.'s expected tokens per step
// in closed form, what it does to one request's TPOT and ITL, the draft's memory, and the scenario's checks.
#include "dlsim/serve/speculative.h"

#include "dlsim/io/serve_scenario.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;
using testing::OneRequest;

TEST(Speculative, TokensPerStepIsLeviathansExpectation) {
  SpeculativeOptions s{.num_tokens = 3, .acceptance_rate = 0.5};
  EXPECT_DOUBLE_EQ(s.TokensPerStep(), (1 - 0.0625) / 0.5);  // 1.875
  s.acceptance_rate = 1;
  EXPECT_DOUBLE_EQ(s.TokensPerStep(), 4);
  s.acceptance_rate = 0;
  EXPECT_DOUBLE_EQ(s.TokensPerStep(), 1);
  EXPECT_DOUBLE_EQ(SpeculativeOptions{}.TokensPerStep(), 1);
}

// Every draft token accepted (alpha 1, k 3): 12 decode tokens in 3 steps of 10 ms, streamed 4 at a time.
TEST(Speculative, OneRequestEmitsItsAcceptedTokensPerStep) {
  ServeOptions o = OneRequest(13);
  o.speculative = {.num_tokens = 3, .acceptance_rate = 1};
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_NEAR(r->records[0].tpot_s, 0.030 / 12, 1e-12);
  EXPECT_EQ(r->metrics.itl_gaps, 3);
  EXPECT_EQ(r->metrics.iterations, 4);  // the prefill and three verification steps
  // alpha 0.6, k 4: (1 - 0.6^5) / 0.4 = 2.3056 tokens per step, accrued deterministically.
  ServeOptions p = OneRequest(1001);
  p.speculative = {.num_tokens = 4, .acceptance_rate = 0.6};
  auto q = Simulate(p, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_NEAR(static_cast<double>(q->metrics.iterations - 1), 1000 / p.speculative.TokensPerStep(), 1.0);
}

double Tpot(const ServeOptions& o) {
  auto r = Simulate(o, Env().catalogs, nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? r->metrics.tpot_s.mean : 0;
}

// On the roofline: verifying k + 1 tokens costs about one decode step (decode reads the weights once), so an
// all-accepting n-gram drafter approaches (k + 1)x; a draft model's k passes cost time and KV memory.
TEST(Speculative, DraftsCostTimeAndMemory) {
  ServeOptions o = BaseOptions("qwen2.5-7b", "h100-sxm5-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace.assign(8, {0.0, 512, 128});
  const double plain = Tpot(o);
  ServeOptions ngram = o;
  ngram.speculative = {.num_tokens = 4, .acceptance_rate = 1};
  EXPECT_LT(Tpot(ngram), plain / 3.5);
  ServeOptions drafted = ngram;
  drafted.speculative.draft = *Env().catalogs.models.Find("qwen2.5-0.5b").value();
  const double with_draft = Tpot(drafted);
  EXPECT_GT(with_draft, Tpot(ngram) * 1.2);
  EXPECT_LT(with_draft, plain);
  auto a = Simulate(o, Env().catalogs, nullptr), b = Simulate(drafted, Env().catalogs, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_GT(b->memory.weights.ToBytes(), a->memory.weights.ToBytes() + 0.9e9);  // the 0.5B draft, bf16
  EXPECT_LT(b->memory.kv_blocks, a->memory.kv_blocks);                          // its KV beside the target's
}

Result<ServeOptions> Parse(const std::string& extra, const std::string& hardware = "{gpu: h100-sxm5-80gb}") {
  const std::string yaml =
      "model: {name: qwen2.5-7b}\nhardware: " + hardware + "\nworkload: {rate: 1, requests: 10}\n" + extra;
  return testing::ParseScenario(yaml);
}

TEST(Speculative, ScenarioKeysAndTheirErrors) {
  auto ok = Parse("speculative: {num_tokens: 5, acceptance_rate: 0.8, draft_model: qwen2.5-0.5b}\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->speculative.num_tokens, 5);
  ASSERT_TRUE(ok->speculative.draft.has_value());
  EXPECT_EQ(ok->speculative.draft->name, "qwen2.5-0.5b");
  const std::pair<std::string, std::string> bad[] = {
      {"speculative: {num_tokens: 4}\n", "acceptance_rate"},
      {"speculative: {num_tokens: 0, acceptance_rate: 0.5}\n", "num_tokens"},
      {"speculative: {num_tokens: 17, acceptance_rate: 0.5}\n", "num_tokens"},
      {"speculative: {num_tokens: 4, acceptance_rate: 1.5}\n", "acceptance_rate"},
      {"speculative: {num_tokens: 4, acceptance_rate: 0.5, draft_model: qwen2.5-05b}\n", "draft_model"},
      {"speculative: {num_tokens: 4, acceptance_rate: 0.5, draft_model: mixtral-8x7b}\n", "draft_model"},
      {"speculative: {num_tokens: 4, acceptance_rate: 0.5}\noffload: {mode: static}\n", "offload.mode"}};
  for (const auto& [yaml, key] : bad) {
    auto o = Parse(yaml);
    ASSERT_FALSE(o.ok()) << yaml;
    EXPECT_NE(o.error().message.find(key), std::string::npos) << o.error().message;
    EXPECT_NE(o.error().message.find("s.yaml:"), std::string::npos) << o.error().message;
  }
  auto pp = Parse("speculative: {num_tokens: 4, acceptance_rate: 0.5}\n", "{gpu: h100-sxm5-80gb, pp: 2}");
  ASSERT_FALSE(pp.ok());
  EXPECT_NE(pp.error().message.find("hardware.pp"), std::string::npos) << pp.error().message;
}

}  // namespace
}  // namespace dlsim::serve
