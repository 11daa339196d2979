// `dlsim repro` through the real binary: the JSON verdict and points fields, and `--check` against a
// verdicts table: a row that agrees passes, one that disagrees fails (in either direction), and every
// registered reproduction missing from the table fails; bad tables and flags are errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "common/run_dlsim.h"

namespace {

using dlsim::testing::Outcome;
using dlsim::testing::RunDlsim;

// A fast reproduction (0.1 s).
constexpr const char* kFast = "bytetransformer";

std::string WriteTable(const std::string& name, const std::string& rows) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("dlsim_repro_" + name + ".md")).string();
  std::ofstream(path) << "# x\n## Verdicts\n| name | verdict |\n|---|---|\n" << rows;
  return path;
}

std::string StatusOf(const std::string& name) {
  const Outcome r = RunDlsim("repro " + name + " --json", false);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["points"].is_array());
  EXPECT_TRUE(j["verdict"]["band"].is_array());
  return j["verdict"]["status"].get<std::string>();
}

TEST(ReproCli, JsonCarriesTheVerdict) {
  const std::string status = StatusOf(kFast);
  EXPECT_TRUE(status == "reproduced" || status == "off") << status;
  const Outcome text = RunDlsim(std::string("repro ") + kFast, false);
  EXPECT_NE(text.output.find("  verdict:  " + status), std::string::npos) << text.output;
}

TEST(ReproCli, CheckPassesTheAgreeingRowAndFailsTheRest) {
  const std::string status = StatusOf(kFast);
  const std::string other = status == "off" ? "reproduced" : "off";
  const std::string agree = WriteTable("agree", "| `" + std::string(kFast) + "` | " + status + " |\n");
  Outcome r = RunDlsim("repro --check --expect " + agree, false);
  EXPECT_EQ(r.exit_code, 1) << r.output;  // every other reproduction is missing from the table
  EXPECT_NE(r.output.find(std::string(kFast)), std::string::npos);
  EXPECT_NE(r.output.find("FAIL: not in the Verdicts table"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("1 of "), std::string::npos) << r.output;
  const std::string disagree = WriteTable("disagree", "| " + std::string(kFast) + " | " + other + " |\n");
  r = RunDlsim("repro --check --expect " + disagree, false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("FAIL: docs/reproductions.md says " + other), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 of "), std::string::npos) << r.output;
}

TEST(ReproCli, BadTablesAndFlagsAreErrors) {
  const std::string bad = WriteTable("bad", "| " + std::string(kFast) + " | maybe |\n");
  Outcome r = RunDlsim("repro --check --expect " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(bad + ":5: verdict 'maybe'"), std::string::npos) << r.output;
  r = RunDlsim("repro --check --expect /nonexistent/r.md");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("/nonexistent/r.md"), std::string::npos) << r.output;
  r = RunDlsim(std::string("repro ") + kFast + " --check");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = RunDlsim(std::string("repro ") + kFast + " --expect x.md");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // --expect needs --check
}

}  // namespace
