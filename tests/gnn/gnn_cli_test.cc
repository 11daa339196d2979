// Through the real binary: `dlsim gnn` exit codes (0 ran, 1 bad input, 2 usage, 3 infeasible) and
// the JSON keys.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/json_checks.h"
#include "common/run_dlsim.h"

namespace {

using dlsim::testing::RunDlsim;

const std::string kSmall = std::string(DLSIM_DATA_DIR) + "/scenarios/gnn_small.yaml";

std::string WriteScenario(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(GnnCliTest, RunsTheSmallScenario) {
  auto r = RunDlsim("gnn " + kSmall);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bottleneck:"), std::string::npos) << r.output;
}

TEST(GnnCliTest, JsonKeys) {
  auto r = RunDlsim("gnn " + kSmall + " --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  for (const char* k :
       {"feasible", "graph", "epoch_s", "fill_s", "bottleneck", "stages", "cache", "partition", "bytes"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["stages"].size(), 4u);
  EXPECT_GT(j["epoch_s"].get<double>(), 0);
}

TEST(GnnCliTest, CompareJson) {
  auto r = RunDlsim("gnn " + kSmall + " --compare --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["variants"].size(), 4u);
  EXPECT_EQ(j["variants"][0]["name"], "dgl-like");
  // No sentinel leaks out: disk.topology_share was -1 in every run that is not on disk.
  dlsim::testing::ExpectSaneJson(j);
  auto one = RunDlsim("gnn " + kSmall + " --json", false);
  const auto single = nlohmann::json::parse(one.output);
  dlsim::testing::ExpectSaneJson(single);
  EXPECT_TRUE(single["disk"]["topology_share"].is_null());
}

TEST(GnnCliTest, DeterministicOutput) {
  EXPECT_EQ(RunDlsim("gnn " + kSmall + " --json").output, RunDlsim("gnn " + kSmall + " --json").output);
}

TEST(GnnCliTest, BadInputIsExitOne) {
  const std::string path =
      WriteScenario("gnn_bad.yaml", "gnn:\n  graph: {rmat: {scale: 8}}\n  sampler: {fanouts: [0]}\n");
  auto r = RunDlsim("gnn " + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("gnn_bad.yaml:3:"), std::string::npos) << r.output;
}

TEST(GnnCliTest, MissingFileArgumentIsUsage) { EXPECT_EQ(RunDlsim("gnn").exit_code, 2); }

TEST(GnnCliTest, InfeasibleIsExitThree) {
  const std::string path =
      WriteScenario("gnn_infeasible.yaml", "gnn:\n  graph: {file: " + std::string(DLSIM_TEST_DATA_DIR) +
                                               "/gnn/tiny.txt, num_nodes: 1000000}\n"
                                               "  features: {dim: 65536}\n  hardware: {gpus_per_machine: 1}\n"
                                               "  cache: {gpu_gib: 79}\n");
  auto r = RunDlsim("gnn " + path);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("infeasible"), std::string::npos) << r.output;
}

TEST(GnnCliTest, ListsTheGnnRegistries) {
  auto r = RunDlsim("list cache-policy");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("fifo"), std::string::npos) << r.output;
}

TEST(GnnCliTest, TraceHasATrackPerStage) {
  const std::string trace = ::testing::TempDir() + "gnn_trace.json";
  auto r = RunDlsim("gnn " + kSmall + " --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(dlsim::testing::ReadFile(trace));
  int tracks = 0;
  for (const auto& e : j["traceEvents"]) tracks += e.value("name", "") == "thread_name";
  EXPECT_EQ(tracks, 4);  // sample, gather, copy, compute (isolation on)
}

}  // namespace
