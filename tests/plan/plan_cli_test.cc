// dlsim plan through the binary: JSON shape, CSV, --write-best accepted by
// dlsim train, and the MPI run (2 ranks, when the test is given DLSIM_MPIRUN)
// equal to a single process.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/run_dlsim.h"

namespace {

using dlsim::testing::Outcome;

Outcome Shell(const std::string& command_line) { return dlsim::testing::RunCommand(command_line + " 2>&1"); }

std::string Dlsim() { return DLSIM_BINARY; }
std::string Scenario() { return std::string(DLSIM_TEST_DATA_DIR) + "/plan/small_13b.yaml"; }
std::string Tmp(const std::string& name) { return ::testing::TempDir() + "plan_cli_" + name; }

// The JSON without the fields that legitimately differ between runs.
nlohmann::json Stable(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text);
  j.erase("elapsed_s");
  j.erase("backend");
  return j;
}

TEST(PlanCli, JsonHasTheContractFields) {
  const Outcome o = Shell(Dlsim() + " plan " + Scenario() + " --json --threads 2");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const nlohmann::json j = nlohmann::json::parse(o.output);
  for (const char* key :
       {"best", "evaluated", "pruned", "elapsed_s", "top", "pareto", "baseline", "candidates"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"tp", "pp", "cp", "dp", "micro_batch", "virtual_stages", "zero", "recompute",
                          "pipeline_schedule", "sequence_parallel"})
    EXPECT_TRUE(j["best"]["parallel"].contains(key)) << key;
  EXPECT_GT(j["best"]["step_time_s"].get<double>(), 0);
  EXPECT_EQ(j["top"].size(), 5u);  // top_k in the file
  EXPECT_EQ(j["top"][0]["step_time_s"], j["best"]["step_time_s"]);
  EXPECT_EQ(j["candidates"].size(), j["evaluated"].get<size_t>());
  EXPECT_GT(j["pruned"]["total"].get<int>(), 0);
  EXPECT_EQ(j["pruned"]["by_reason"].size(), 8u);
}

// Each top row's peak memory carries the `memory` regime's interval (one ratio for all), and a row is "at
// risk" exactly when it fits at its predicted peak but its interval's upper end exceeds the usable memory.
// Memory is tight in this space (13B on 8-16 GPUs), so some top rows must be at risk and the report names
// them.
TEST(PlanCli, TopRowsCarryAMemoryIntervalAndItsRisk) {
  const Outcome o = Shell(Dlsim() + " plan " + Scenario() + " --json --threads 2 --top 40");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  const nlohmann::json j = nlohmann::json::parse(o.output);
  const double usable = j["usable_memory_gib"].get<double>();
  EXPECT_NEAR(usable, 80.0 * 0.95, 1e-9);  // H100 80 GiB less the 5% headroom
  int risky = 0, safe = 0;
  for (const auto& row : j["top"]) {
    const double peak = row["peak_memory_gib"].get<double>();
    const auto& band = row["peak_memory_interval_gib"];
    ASSERT_LT(band[0].get<double>(), peak);
    ASSERT_GT(band[1].get<double>(), peak);
    ASSERT_LE(peak, usable);
    EXPECT_EQ(row["memory_at_risk"].get<bool>(), band[1].get<double>() > usable) << row.dump();
    (row["memory_at_risk"].get<bool>() ? risky : safe) += 1;
  }
  EXPECT_GT(risky, 0);
  EXPECT_GT(safe, 0);
  const Outcome text = Shell(Dlsim() + " plan " + Scenario() + " --threads 2 --top 40");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("may not fit the usable 76 GiB at its upper end: #"), std::string::npos)
      << text.output;
}

TEST(PlanCli, CsvAndBestScenario) {
  const std::string csv = Tmp("all.csv"), best = Tmp("best.yaml");
  const Outcome o = Shell(Dlsim() + " plan " + Scenario() + " --csv " + csv + " --write-best " + best);
  ASSERT_EQ(o.exit_code, 0) << o.output;
  EXPECT_NE(o.output.find("Top 5 by step_time"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("Pareto front, step time vs GPUs"), std::string::npos);
  EXPECT_NE(o.output.find("Scenario's own layout"), std::string::npos);
  std::ifstream f(csv);
  std::string line;
  int rows = 0;
  std::getline(f, line);
  EXPECT_EQ(line.rfind("gpus,global_batch,micro_batch,tp,", 0), 0u) << line;
  while (std::getline(f, line)) ++rows;
  const Outcome j = Shell(Dlsim() + " plan " + Scenario() + " --json");
  const nlohmann::json plan = nlohmann::json::parse(j.output);
  EXPECT_EQ(rows, plan["evaluated"].get<int>());
  // The written best runs as a training scenario and reproduces the planner's
  // step time.
  const Outcome t = Shell(Dlsim() + " train " + best + " --json");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const nlohmann::json step = nlohmann::json::parse(t.output);
  EXPECT_TRUE(step["feasible"].get<bool>());
  EXPECT_DOUBLE_EQ(step["step_time_s"].get<double>(), plan["best"]["step_time_s"].get<double>());
  EXPECT_EQ(step["parallel"]["tp"], plan["best"]["parallel"]["tp"]);
}

// --write-best dropped the data section: the written scenario ran with uniform sequences and did not
// reproduce the planner's (data-aware) step time. The length file is written as an absolute path, so
// the best scenario runs from any folder.
TEST(PlanCli, BestScenarioKeepsTheDataSection) {
  const std::string plan_file = std::string(DLSIM_TEST_DATA_DIR) + "/plan/small_data.yaml";
  const std::string best = Tmp("best_data.yaml");
  const Outcome j = Shell(Dlsim() + " plan " + plan_file + " --json --write-best " + best);
  ASSERT_EQ(j.exit_code, 0) << j.output;
  const nlohmann::json plan = nlohmann::json::parse(j.output);
  std::ifstream f(best);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_NE(text.str().find("data:\n  lengths: {file: \"/"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("  policy: wlb\n  seed: 3\n  steps: 2\n"), std::string::npos) << text.str();
  const Outcome t = Shell("cd / && " + Dlsim() + " train " + best + " --json");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  const nlohmann::json step = nlohmann::json::parse(t.output);
  EXPECT_DOUBLE_EQ(step["step_time_s"].get<double>(), plan["best"]["step_time_s"].get<double>());
}

// The top table was 236 columns wide, with an objective column repeating step (s): it fits about
// 120 columns now, and why each row is not first is a wrapped list under it.
TEST(PlanCli, TopTableFitsAboutOneHundredTwentyColumns) {
  const Outcome o =
      Shell(Dlsim() + " plan " + DLSIM_DATA_DIR + "/scenarios/plan_nemo_llama2-7b_8gpu.yaml --quiet");
  ASSERT_EQ(o.exit_code, 0) << o.output;
  std::istringstream lines(o.output);
  size_t widest = 0;
  for (std::string line; std::getline(lines, line);) widest = std::max(widest, line.size());
  EXPECT_LE(widest, 120u) << o.output;
  EXPECT_NE(o.output.find("step (s)  tokens/s/GPU    MFU  peak (GiB)\n"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("objective"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("Why not first:\n  #2 +"), std::string::npos) << o.output;
  const Outcome cost = Shell(Dlsim() + " plan " + DLSIM_TEST_DATA_DIR + "/plan/small_cost.yaml --quiet");
  ASSERT_EQ(cost.exit_code, 0) << cost.output;
  EXPECT_NE(cost.output.find("peak (GiB)  cost per 1M tokens\n"), std::string::npos) << cost.output;
}

TEST(PlanCli, BadInputIsALocatedError) {
  const std::string bad = Tmp("bad.yaml");
  std::ofstream(bad) << "model: {name: llama3-8b}\nhardware: {node: dgx-h100, "
                        "gpus: 8}\nsearch:\n  tp: [1, two]\n";
  const Outcome o = Shell(Dlsim() + " plan " + bad);
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_NE(o.output.find("dlsim plan: " + bad + ":4:"), std::string::npos) << o.output;
  EXPECT_NE(o.output.find("search.tp[1]"), std::string::npos) << o.output;
  EXPECT_NE(Shell(Dlsim() + " plan /nonexistent.yaml").exit_code, 0);
}

TEST(PlanCli, MpiTwoRanksEqualsOneProcess) {
  const char* mpirun = std::getenv("DLSIM_MPIRUN");
  if (mpirun == nullptr || *mpirun == '\0') GTEST_SKIP() << "DLSIM_MPIRUN not set (built without MPI)";
  const Outcome single = Shell(Dlsim() + " plan " + Scenario() + " --json --threads 1");
  const Outcome mpi = Shell(std::string(mpirun) + " -n 2 --oversubscribe " + Dlsim() + " plan " + Scenario() +
                            " --json --threads 1");
  ASSERT_EQ(single.exit_code, 0) << single.output;
  ASSERT_EQ(mpi.exit_code, 0) << mpi.output;
  EXPECT_NE(nlohmann::json::parse(mpi.output)["backend"].get<std::string>().find("2 MPI ranks"),
            std::string::npos);
  EXPECT_EQ(Stable(single.output), Stable(mpi.output));
}

}  // namespace
