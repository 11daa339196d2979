// dlsim calibrate --serve (validate/serving_calibrate.h): it recovers the engine CPU times that made a set of
// runs' times, fits the first-token path in closed form, and refuses what it cannot fit.
#include "dlsim/validate/serving_calibrate.h"

#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serving_runs.h"
#include "dlsim/serve/engine_profile.h"
#include "dlsim/serve/simulate.h"

namespace dlsim::validate {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *c;
}

serve::ServeOptions Burst(int requests, int prompt, int output) {
  serve::ServeOptions o;
  o.name = "burst";
  o.model = *Cat().models.Find("llama3-8b").value();
  o.gpu = *Cat().hardware.FindGpu("h100-sxm5-80gb").value();
  o.engine = "vllm-0.5";
  o.scheduler = (*serve::FindEngine(o.engine))->SchedulerDefaults(o.model);
  o.workload.arrival = serve::ArrivalKind::kTrace;
  o.workload.trace.assign(requests, {0.0, prompt, output});
  return o;
}

// Runs priced with a known host (step 2.5 ms, 300 us per request, 25 ms first-token path; the profile's
// streaming, which the fit keeps): the fit, starting from vllm-0.5's profile, finds those values again.
TEST(ServingCalibrate, RecoversTheHostThatMadeTheTimes) {
  serve::EngineHost truth = (*serve::FindEngine("vllm-0.5"))->host;
  truth.step = Micros(2500);
  truth.per_request = Micros(300);
  truth.first_token = Millis(25);
  std::vector<ServingRun> runs;
  for (int batch : {1, 16, 64}) {
    serve::ServeOptions o = Burst(batch, 256, 64);
    serve::ServeOptions priced = o;
    priced.engine_host = truth;
    auto r = serve::Simulate(priced, Cat(), nullptr);
    ASSERT_TRUE(r.ok()) << r.error().message;
    runs.push_back(
        {"b" + std::to_string(batch), o, r->metrics.tpot_s.mean * 1e3, r->metrics.ttft_s.mean * 1e3});
  }
  auto fit = CalibrateServing(runs, Cat());
  ASSERT_TRUE(fit.ok()) << fit.error().message;
  EXPECT_EQ(fit->engine, "vllm-0.5");
  ASSERT_TRUE(fit->fitted.step_us && fit->fitted.per_request_us && fit->fitted.first_token_us);
  EXPECT_NEAR(*fit->fitted.step_us, 2500, 0.03 * 2500);
  EXPECT_NEAR(*fit->fitted.per_request_us, 300, 0.03 * 300);
  EXPECT_NEAR(*fit->fitted.first_token_us, 25000, 0.03 * 25000);
  EXPECT_LT(fit->tpot_mape_after, 1.0);
  EXPECT_GT(fit->tpot_mape_before, 10.0);  // the profile's 6.3 ms step is far from 2.5 ms
  EXPECT_LT(*fit->ttft_mape_after, 1.0);
  // One run fits the step only; the per-request time stays the profile's.
  auto one = CalibrateServing({runs[1]}, Cat());
  ASSERT_TRUE(one.ok()) << one.error().message;
  EXPECT_FALSE(one->fitted.per_request_us.has_value());
}

TEST(ServingCalibrate, OneEngineAtATime) {
  serve::ServeOptions a = Burst(1, 128, 32), b = a;
  b.engine = "vllm-0.6";
  auto r = CalibrateServing({{"a", a, 10.0, {}}, {"b", b, 10.0, {}}}, Cat());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("calibrate one engine per file"), std::string::npos) << r.error().message;
  EXPECT_FALSE(CalibrateServing({}, Cat()).ok());
  auto single_token = CalibrateServing({{"c", Burst(1, 128, 1), 10.0, {}}}, Cat());
  ASSERT_FALSE(single_token.ok());
  EXPECT_NE(single_token.error().message.find("two output tokens"), std::string::npos);
}

TEST(ServingRuns, BadRowsAreLocatedErrors) {
  const io::ServeNames names{{"distserve", "orca", "sarathi", "vllm"},
                             {"least-outstanding-tokens", "round-robin"}};
  const std::string dir = std::string(DLSIM_DATA_DIR) + "/../examples/serving/";
  auto ok = io::ParseServingRuns("scenario,tpot_ms,ttft_ms\nvllm-0.5-issue6913-bs1.yaml,19,\n", dir + "r.csv",
                                 Cat(), names);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_FALSE((*ok)[0].ttft_ms.has_value());
  for (const char* bad :
       {"scenario,tpot_ms\nvllm-0.5-issue6913-bs1.yaml,-3\n", "scenario\nx.yaml\n",
        "scenario,tpot_ms\nmissing.yaml,3\n", "scenario,tpot_ms\nvllm-0.5-issue6913-bs1.yaml,abc\n"}) {
    auto r = io::ParseServingRuns(bad, dir + "r.csv", Cat(), names);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("r.csv"), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace dlsim::validate
