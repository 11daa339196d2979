// Determinism: the same scenario and seed give byte-identical JSON and trace output.
#include <gtest/gtest.h>

#include <filesystem>

#include "common/run_dlsim.h"

namespace dlsim {
namespace {

using testing::ReadFile;
using testing::RunDlsim;

const std::string kScenarios = std::string(DLSIM_TEST_DATA_DIR) + "/scenarios/";

// `tag` keeps the trace files of tests that CTest runs in parallel apart.
void ExpectIdenticalRuns(const std::string& scenario, const std::string& tag) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string t1 = (dir / ("dlsim_det_" + tag + "_1.json")).string();
  const std::string t2 = (dir / ("dlsim_det_" + tag + "_2.json")).string();
  auto a = RunDlsim("train " + scenario + " --json --trace " + t1, false);
  auto b = RunDlsim("train " + scenario + " --json --trace " + t2, false);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_EQ(a.output, b.output);
  const std::string ta = ReadFile(t1), tb = ReadFile(t2);
  EXPECT_GT(ta.size(), 100u);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(ta.find("compute"), std::string::npos);  // per-stream thread names
}

TEST(DeterminismTest, DefaultScenarioTwiceIsByteIdentical) { ExpectIdenticalRuns("--default", "default"); }

TEST(DeterminismTest, DataAwareScenarioTwiceIsByteIdentical) {
  ExpectIdenticalRuns(kScenarios + "data_aware_small.yaml", "data");
}

TEST(DeterminismTest, DifferentSeedChangesDataAwareResult) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string path = (dir / "dlsim_seed12.yaml").string();
  std::string text = ReadFile(kScenarios + "data_aware_small.yaml");
  text.replace(text.find("seed: 11"), 8, "seed: 12");
  std::ofstream(path) << text;
  auto a = RunDlsim("train " + kScenarios + "data_aware_small.yaml --json", false);
  auto b = RunDlsim("train " + path + " --json", false);
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_EQ(b.exit_code, 0) << b.output;
  EXPECT_NE(a.output, b.output);
  EXPECT_NE(a.output.find("\"straggler_s\""), std::string::npos);
}

}  // namespace
}  // namespace dlsim
