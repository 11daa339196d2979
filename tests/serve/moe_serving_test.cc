// Serving mixture-of-experts models (serve/moe_step.h): the experts a step reaches against brute force, what
// batch size does to an MoE decode (the experts read), expert against tensor parallelism, and the scenario's
// checks.
#include <algorithm>
#include <set>
#include <vector>

#include "dlsim/io/serve_scenario.h"
#include "dlsim/serve/moe_step.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

// Every way `tokens` tokens can each pick `k` distinct experts of `e`, equally likely: the mean number of
// experts picked at least once.
double BruteForceActive(int e, int k, int tokens) {
  std::vector<int> subsets;  // bit masks of the k-subsets
  for (int mask = 0; mask < (1 << e); ++mask)
    if (__builtin_popcount(mask) == k) subsets.push_back(mask);
  const int n = static_cast<int>(subsets.size());
  int64_t combos = 1;
  for (int i = 0; i < tokens; ++i) combos *= n;
  double sum = 0;
  for (int64_t c = 0; c < combos; ++c) {
    int used = 0;
    for (int64_t rest = c, i = 0; i < tokens; ++i, rest /= n) used |= subsets[rest % n];
    sum += __builtin_popcount(used);
  }
  return sum / static_cast<double>(combos);
}

TEST(MoeStep, ActiveExpertsMatchBruteForce) {
  for (int e : {4, 5, 8})
    for (int k : {1, 2, 3})
      for (int t : {1, 2, 3, 4}) EXPECT_NEAR(ExpectedActiveExperts(e, k, t), BruteForceActive(e, k, t), 1e-9);
  EXPECT_EQ(ExpectedActiveExperts(8, 2, 0), 0);
  EXPECT_NEAR(ExpectedActiveExperts(8, 2, 1000), 8, 1e-9);
  EXPECT_NEAR(ExpectedActiveExperts(8, 8, 1), 8, 1e-12);
}

TEST(MoeStep, ShapesUnderTensorAndExpertParallelism) {
  const model::MoeSpec mixtral{.experts = 8, .top_k = 2, .expert_ffn_hidden = 14336};
  const MoeStep one = MoeStepShape(mixtral, 1, 2, 1);
  EXPECT_NEAR(one.experts_per_gpu, 2, 1e-12);  // a single token reaches its two experts
  EXPECT_EQ(one.tokens_per_expert, 1);
  EXPECT_EQ(one.width, 7168);  // split over tp 2
  const MoeStep many = MoeStepShape(mixtral, 4096, 2, 2);
  EXPECT_NEAR(many.experts_per_gpu, 4, 1e-9);  // all 8 reached, half on each GPU, whole
  EXPECT_EQ(many.tokens_per_expert, 1024);     // 4096 x 2 / 8
  EXPECT_EQ(many.width, 14336);
}

double DecodeTpotMs(ServeOptions o, int batch) {
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.trace.assign(batch, {0.0, 512, 64});
  auto r = Simulate(o, Env().catalogs, nullptr);
  EXPECT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->feasible) << r->reason;
  return r->metrics.tpot_s.mean * 1e3;
}

// A batch-1 decode reads two of Mixtral's eight experts: it costs what a dense model with those two experts'
// MLP costs (plus the router and the token moves); a batch of 64 reaches all eight, so its decode reads
// nearly all 46.7B parameters.
TEST(MoeServing, BatchSizeDecidesTheExpertsRead) {
  ServeOptions moe = BaseOptions("mixtral-8x7b", "h100-sxm5-80gb", 2);
  ServeOptions dense = moe;
  dense.model.moe = {};
  dense.model.ffn_hidden = 2 * 14336;
  const double moe1 = DecodeTpotMs(moe, 1), dense1 = DecodeTpotMs(dense, 1);
  EXPECT_NEAR(moe1 / dense1, 1.0, 0.08) << moe1 << " vs " << dense1;
  const double moe64 = DecodeTpotMs(moe, 64);
  ServeOptions all = dense;
  all.model.ffn_hidden = 8 * 14336;
  const double all64 = DecodeTpotMs(all, 64);
  EXPECT_GT(moe64, 2.5 * moe1);
  EXPECT_LT(moe64, 1.1 * all64);  // no more than reading every expert at batch 64
}

// Expert parallelism moves the same FLOPs and bytes (half the experts whole instead of every expert half
// width): at a large batch, where every expert is reached, the two price alike.
TEST(MoeServing, ExpertAndTensorParallelismPriceAlikeWhenEveryExpertIsReached) {
  ServeOptions tp = BaseOptions("mixtral-8x7b", "h100-sxm5-80gb", 2);
  ServeOptions ep = tp;
  ep.hardware.ep = 2;
  const double a = DecodeTpotMs(tp, 128), b = DecodeTpotMs(ep, 128);
  EXPECT_NEAR(a / b, 1.0, 0.05) << a << " vs " << b;
}

Result<ServeOptions> Parse(const std::string& model, const std::string& hardware,
                           const std::string& extra = "") {
  const std::string yaml =
      "model: " + model + "\nhardware: " + hardware + "\nworkload: {rate: 1, requests: 10}\n" + extra;
  return testing::ParseScenario(yaml);
}

TEST(MoeServing, ScenarioChecks) {
  auto ok = Parse("{name: mixtral-8x7b}", "{gpu: h100-sxm5-80gb, tp: 4, ep: 4}");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->hardware.ep, 4);
  const std::pair<std::string, std::string> bad[] = {
      {"{name: llama3-8b}", "{gpu: h100-sxm5-80gb, tp: 2, ep: 2}"},                 // no experts
      {"{name: mixtral-8x7b}", "{gpu: h100-sxm5-80gb, tp: 4, ep: 2}"},              // ep neither 1 nor tp
      {"{name: mixtral-8x7b, experts: 6}", "{gpu: h100-sxm5-80gb, tp: 4, ep: 4}"},  // 4 does not divide 6
  };
  for (const auto& [m, h] : bad) {
    auto o = Parse(m, h);
    ASSERT_FALSE(o.ok()) << m << " " << h;
    EXPECT_NE(o.error().message.find("s.yaml:2"), std::string::npos) << o.error().message;
    EXPECT_NE(o.error().message.find("hardware.ep"), std::string::npos) << o.error().message;
  }
  auto mla = Parse("{name: deepseek-v3}", "{gpu: h200, tp: 8}");
  ASSERT_FALSE(mla.ok());
  EXPECT_NE(mla.error().message.find("multi-head latent attention"), std::string::npos)
      << mla.error().message;
  auto off = Parse("{name: mixtral-8x7b}", "{gpu: h100-sxm5-80gb, tp: 2}", "offload: {mode: static}\n");
  ASSERT_FALSE(off.ok());
  EXPECT_NE(off.error().message.find("offload.mode"), std::string::npos) << off.error().message;
}

}  // namespace
}  // namespace dlsim::serve
