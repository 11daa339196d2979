// `cost.model` in a training scenario selects the compute model through the real binary: the
// step time changes with the model and the report names the one used (a bad name:
// tests/data/bad/unknown_cost_model.yaml in train_cli_test.cc).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/run_dlsim.h"

namespace {

using dlsim::testing::Outcome;
using dlsim::testing::RunDlsim;

const std::string kScenarios = std::string(DLSIM_TEST_DATA_DIR) + "/scenarios/";

nlohmann::json TrainJson(const std::string& model) {
  const Outcome r = RunDlsim("train " + kScenarios + "cost_model_" + model + ".yaml --json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output, nullptr, /*allow_exceptions=*/false);
}

TEST(CostModelCli, LearnedChangesTheStepTimeAndTheReportNamesIt) {
  const nlohmann::json roofline = TrainJson("roofline"), learned = TrainJson("learned"),
                       tile = TrainJson("tile");
  ASSERT_TRUE(roofline.is_object() && learned.is_object() && tile.is_object());
  EXPECT_EQ(roofline["compute_model"], "roofline");
  EXPECT_EQ(learned["compute_model"], "learned");
  EXPECT_EQ(tile["compute_model"], "tile");
  const double a = roofline["step_time_s"], b = learned["step_time_s"], c = tile["step_time_s"];
  EXPECT_GT(b, 0);
  EXPECT_NE(a, b);
  EXPECT_NE(b, c);  // the trees correct the tile model
  // Same GEMMs, a model of the same kernels: within a factor of 1.5 of each other.
  EXPECT_LT(std::max(a, b) / std::min(a, b), 1.5);
  const Outcome text = RunDlsim("train " + kScenarios + "cost_model_learned.yaml");
  EXPECT_NE(text.output.find("cost model: learned"), std::string::npos) << text.output;
}

}  // namespace
