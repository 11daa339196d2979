// Every --json result carries its resolved inputs (io/resolved_scenario.h), and they are a scenario: written
// to a file and run again, they give the same result, byte for byte, for training, planning, serving and GNN
// runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/run_dlsim.h"

namespace {

using dlsim::testing::Outcome;
using dlsim::testing::RunDlsim;
using nlohmann::ordered_json;

std::string Scenario(const std::string& name) { return std::string(DLSIM_DATA_DIR) + "/scenarios/" + name; }

// Runs `command FILE --json`, writes its `inputs` to a file, runs `command` on that file, and compares.
void ExpectRerunIsIdentical(const std::string& command, const std::string& file) {
  const Outcome first = RunDlsim(command + " " + file + " --json", false);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  ordered_json a = ordered_json::parse(first.output);
  ASSERT_TRUE(a.contains("inputs")) << file;
  ASSERT_TRUE(a.contains("dlsim_version")) << file;
  const std::string resolved = (std::filesystem::temp_directory_path() /
                                ("dlsim_resolved_" + std::to_string(::getpid()) + "_" + command + ".yaml"))
                                   .string();
  std::ofstream(resolved) << a["inputs"].dump();
  const Outcome second = RunDlsim(command + " " + resolved + " --json", false);
  std::filesystem::remove(resolved);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  ordered_json b = ordered_json::parse(second.output);
  EXPECT_EQ(b["inputs"], a["inputs"]) << file;
  a.erase("inputs");
  b.erase("inputs");
  if (a.contains("name")) b["name"] = a["name"];           // a GNN result names its scenario file
  for (ordered_json* j : {&a, &b}) j->erase("elapsed_s");  // the planner's wall time
  EXPECT_TRUE(b == a) << file << ": the re-run differs";
}

TEST(ResolvedInputs, TrainRerunsFromItsInputs) {
  ExpectRerunIsIdentical("train", Scenario("llama3_8b_fp8_h100.yaml"));
  ExpectRerunIsIdentical("train",
                         Scenario("wan2.1_14b_dsv_128xh100.yaml"));  // a video clip, a sparsity section
}

TEST(ResolvedInputs, ServeRerunsFromItsInputs) {
  ExpectRerunIsIdentical("serve", Scenario("serve_llama2_7b_a100_vllm.yaml"));
}

TEST(ResolvedInputs, GnnRerunsFromItsInputs) { ExpectRerunIsIdentical("gnn", Scenario("gnn_small.yaml")); }

TEST(ResolvedInputs, PlanRerunsFromItsInputs) {
  ExpectRerunIsIdentical("plan", Scenario("plan_nemo_llama2-7b_8gpu.yaml") + " --quiet");
}

TEST(ResolvedInputs, LaunchConfigurationsAreResolvedIntoTheInputs) {
  const Outcome r =
      RunDlsim("train " + std::string(DLSIM_TEST_DATA_DIR) + "/launch/scenario_megatron.yaml --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const ordered_json in = ordered_json::parse(r.output)["inputs"];
  EXPECT_EQ(in["model"]["layers"], 32);
  EXPECT_EQ(in["parallel"]["cp"], 2);
  EXPECT_EQ(in["training"]["stack"], "megatron-core-0.8");
  EXPECT_FALSE(in["model"].contains("megatron_args"));  // resolved: the shape, not the file
}

TEST(ResolvedInputs, ClusterComparisonGivesEachPolicyItsInputs) {
  const Outcome r =
      RunDlsim("cluster " + Scenario("cluster_training_jobs.yaml") + " --compare fifo,las --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const ordered_json j = ordered_json::parse(r.output);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["inputs"]["policy"]["name"], "fifo");
  EXPECT_EQ(j[1]["inputs"]["policy"]["name"], "las");
  EXPECT_TRUE(j[1].contains("dlsim_version"));
}

}  // namespace
