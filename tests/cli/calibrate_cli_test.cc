// `dlsim calibrate` through the real binary: the file it writes is read back by --calibration and changes
// train's prediction toward the runs; bad RUNS.csv files are errors with file, line and column and write
// nothing; too many constants for the rows are refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/run_dlsim.h"

namespace {

using dlsim::testing::Outcome;
using dlsim::testing::RunDlsim;

const std::string kDir = std::string(DLSIM_TEST_DATA_DIR) + "/calibrate/";

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("dlsim_calibrate_" + name)).string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  return text.str();
}

double StepTime(const std::string& global_flags) {
  const Outcome r = RunDlsim(global_flags + " train " + kDir + "base.yaml --json", false);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return nlohmann::json::parse(r.output)["step_time_s"].get<double>();
}

TEST(CalibrateCli, WritesAFileThatTrainReadsBack) {
  const std::string out = TempPath("ok.yaml");
  std::filesystem::remove(out);
  const Outcome r =
      RunDlsim("calibrate " + kDir + "runs.csv -o " + out + " --fit gemm,host --threads 2", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Constants (hopper)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("MAPE (%)"), std::string::npos);
  const std::string text = ReadAll(out);
  EXPECT_NE(text.find("gemm_max_efficiency:"), std::string::npos) << text;
  EXPECT_NE(text.find("layer_host_us:"), std::string::npos);
  EXPECT_EQ(text.find("attention_efficiency"), std::string::npos);  // only what was fitted
  // Run b of runs.csv is base.yaml itself, measured at 0.110 s: the calibrated prediction moves toward it.
  const double before = StepTime(""), after = StepTime("--calibration " + out);
  EXPECT_LT(std::fabs(after - 0.110), std::fabs(before - 0.110)) << before << " -> " << after;
  std::filesystem::remove(out);
}

TEST(CalibrateCli, JsonReportsTheThreeErrors) {
  const Outcome r = RunDlsim("calibrate " + kDir + "runs.csv --fit gemm --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["runs"].size(), 4u);
  EXPECT_EQ(j["fitted"][0]["constant"], "gemm");
  EXPECT_LE(j["step_mape_pct"]["fitted"].get<double>(), j["step_mape_pct"]["shipped"].get<double>());
  EXPECT_GE(j["step_mape_pct"]["held_out"].get<double>(), j["step_mape_pct"]["fitted"].get<double>() - 1e-9);
}

TEST(CalibrateCli, BadRunsFilesNameTheCellAndWriteNothing) {
  const std::string out = TempPath("bad.yaml");
  struct Case {
    const char* file;
    const char* expect;
  } cases[] = {
      {"nan_time.csv", "nan_time.csv:2:"},
      {"negative_time.csv", "expected a measured value > 0"},
      {"no_time.csv", "needs a 'step_time_s' column"},
      {"bad_key.csv", "seq_lenn"},
      {"missing_scenario.csv", "missing.yaml"},
  };
  for (const Case& c : cases) {
    std::filesystem::remove(out);
    const Outcome r = RunDlsim("calibrate " + kDir + c.file + " -o " + out, true);
    EXPECT_EQ(r.exit_code, 1) << c.file << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.file << ": " << r.output;
    EXPECT_FALSE(std::filesystem::exists(out)) << c.file;
  }
  const Outcome r = RunDlsim("calibrate " + kDir + "runs.csv --fit gemm,host,attention -o " + out, true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("4 runs support at most 2"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace

namespace {

// A calibration's own interval reaches train's JSON as the "calibrated" regime.
TEST(CalibrateCli, TrainReportsTheCalibratedInterval) {
  const std::string out = TempPath("interval.yaml");
  ASSERT_EQ(RunDlsim("calibrate " + kDir + "runs.csv -o " + out + " --fit gemm", false).exit_code, 0);
  const Outcome r = RunDlsim("--calibration " + out + " train " + kDir + "base.yaml --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["step_time_interval_s"]["regime"], "calibrated");
  EXPECT_LE(j["step_time_interval_s"]["low"].get<double>(), j["step_time_s"].get<double>());
  EXPECT_GE(j["step_time_interval_s"]["high"].get<double>(), j["step_time_s"].get<double>());
  const Outcome shipped = RunDlsim("train " + kDir + "base.yaml --json", false);
  EXPECT_EQ(nlohmann::json::parse(shipped.output)["step_time_interval_s"]["regime"], "fitted-stack");
  std::filesystem::remove(out);
}

const std::string kTrace =
    std::string(DLSIM_TEST_DATA_DIR) + "/traces/llama-3.2-1b_amp_2x2048.trimmed.json.gz";

TEST(CalibrateCli, ATraceCalibrationIsReadBackByTrain) {
  const std::string out = TempPath("trace.yaml");
  std::filesystem::remove(out);
  const Outcome r = RunDlsim("calibrate --trace " + kTrace + " -o " + out, false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("GPU time by category (ms), h200-sxm-141gb (hopper)"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("attention cudnn"), std::string::npos);
  const std::string text = ReadAll(out);
  EXPECT_NE(text.find("cudnn:"), std::string::npos) << text;
  EXPECT_NE(text.find("elementwise_efficiency:"), std::string::npos);
  EXPECT_EQ(text.find("layer_host_us"), std::string::npos);  // only with --with-host
  EXPECT_NE(StepTime("--calibration " + out), StepTime(""));
  std::filesystem::remove(out);
}

TEST(CalibrateCli, BadTracesWriteNothing) {
  const std::string out = TempPath("bad_trace.yaml");
  std::filesystem::remove(out);
  const std::string bad = TempPath("bad_trace.json");
  std::ofstream(bad) << "{\"traceEvents\": [";
  Outcome r = RunDlsim("calibrate --trace " + bad + " -o " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(bad + ":1:"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = RunDlsim("calibrate " + kDir + "runs.csv --trace " + kTrace);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("not both"), std::string::npos) << r.output;
  r = RunDlsim("calibrate");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  std::filesystem::remove(bad);
}

}  // namespace
