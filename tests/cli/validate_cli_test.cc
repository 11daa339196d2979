// `dlsim validate --cross-validate`: prints the in-sample, k-fold and leave-one-set-out MAPE of
// every fit set (a short run: two folds, one Nelder-Mead iteration per refit and stage).
#include <gtest/gtest.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "common/run_dlsim.h"
#include "common/sanitizers.h"

namespace dlsim {
namespace {

using testing::Outcome;
using testing::RunDlsim;

const char kShortRun[] = "validate --cross-validate --folds 2 --cv-iterations 1 --loso-iterations 1";

TEST(ValidateCliTest, CrossValidatePrintsTheThreeColumnsPerFitSet) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  const Outcome r = RunDlsim(std::string(kShortRun) + " --summary --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* column : {"in-sample", "k-fold CV", "leave-one-set-out"})
    EXPECT_NE(r.output.find(column), std::string::npos) << column << "\n" << r.output;
  for (const char* set :
       {"megatron-2021-table1", "korthikanti-2022-full", "korthikanti-2022-seq-sel", "vtrain-single-node",
        "nemo-24.07-h100-fp8", "mlperf-v3.1-gpt3-h100", "nemo-long-context-cp-h100"})
    EXPECT_NE(r.output.find(set), std::string::npos) << set << "\n" << r.output;
  EXPECT_EQ(r.output.find("korthikanti-2022-memory"), std::string::npos) << "memory is not fitted";
  EXPECT_EQ(r.output.find("nemo-long-context-cp-b200"), std::string::npos)
      << "no Blackwell constant is fitted";
}

TEST(ValidateCliTest, CrossValidateJsonHasTheThreeFiguresForTheSelectedSet) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  const Outcome r = RunDlsim(std::string(kShortRun) + " --json --set nemo-24 --threads 1", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["sets"].size(), 1u);
  const auto& s = j["sets"][0];
  EXPECT_EQ(s["name"], "nemo-24.07-h100-fp8");
  EXPECT_TRUE(s["in_sample_mape_pct"].is_number());
  EXPECT_TRUE(s["kfold_mape_pct"].is_number());
  EXPECT_TRUE(s["leave_one_set_out_mape_pct"].is_number());
  EXPECT_EQ(j["fits"].size(), 2u + 1u);  // two folds; --set: only that set is left out
}

// A fold count below 2 is a command-line error (exit 2), caught by the flag's range.
TEST(ValidateCliTest, CrossValidateRejectsOneFold) {
  const Outcome r = RunDlsim("validate --cross-validate --folds 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--folds: Value 1 not in range 2 to 1000"), std::string::npos) << r.output;
}

// More folds than the largest fit set has rows would refit for nothing (it ran for 427 s on a 9-row set): an
// error before any refit, naming the set and the most folds it allows.
TEST(ValidateCliTest, CrossValidateRejectsMoreFoldsThanRows) {
  const Outcome r = RunDlsim("validate --cross-validate --folds 1000 --threads 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("1000 folds, but the largest fit set ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("folds (leave-one-out)"), std::string::npos) << r.output;
}

// `validate --calibrate-with 5`: a held-out set scored with the shipped constants, after `dlsim calibrate` on
// 5 of its rows (error on the other 7) and in-sample; calibrating on 5 rows must leave the rest better off
// than the shipped constants on a set dlsim prices 11% too fast (torchtitan on H100), within issue 32's 8% on
// the rows it did not see (7.59% today), and a set with too few rows says so.
TEST(ValidateCliTest, CalibrateWithFiveRowsPrintsTheThreeColumns) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  Outcome r = RunDlsim("validate --calibrate-with 5 --set torchtitan", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("uncalibrated  calibrated (5)  in-sample"), std::string::npos) << r.output;
  const size_t at = r.output.find("torchtitan-h100-nd");
  ASSERT_NE(at, std::string::npos) << r.output;
  double rows = 0, uncal = 0, cal = 0, in = 0;
  ASSERT_EQ(std::sscanf(r.output.c_str() + at, "torchtitan-h100-nd %lf %lf%% %lf%% %lf%%", &rows, &uncal,
                        &cal, &in),
            4)
      << r.output.substr(at, 120);
  EXPECT_LT(cal, uncal);
  EXPECT_LE(cal, 8.0);
  EXPECT_LE(in, cal + 1e-9);
  EXPECT_NE(r.output.find("torchtitan-a100-fsdp: 3 usable rows; calibrating on 5 needs at least 7"),
            std::string::npos);
}

// The sets kept as runs files (io/runs_file_sets.h): NVIDIA's Llama-3.2-1B training runs at locked SM clocks
// (docs/validation.md "Locked-clock eager training"), scored as shipped. The H200 rows at 1500 MHz come out
// slow (the lock is priced against the maximum clock, 1980 MHz, above what the free-clock rates held at) and
// the B200 rows at 1665 MHz fast (no Blackwell eager-kernel or xformers rates; the GEMM price
// holds on XLA's B200 table): a change to either moves this test. The same file read by `calibrate --fit
// none` gives the same predictions, and `--calibrate-with` calibrates on its rows.
TEST(ValidateCliTest, RunsFileSetsAreScoredAsPublished) {
  const Outcome r = RunDlsim("validate --set cudnn-frontend-llama3.2-1b --json", false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j.size(), 2u);
  struct Expect {
    const char* name;
    double mape_lo, mape_hi;
    bool slow;
  };
  const Expect expect[] = {{"cudnn-frontend-llama3.2-1b-h200", 8, 20, true},
                           {"cudnn-frontend-llama3.2-1b-b200", 25, 45, false}};
  for (size_t i = 0; i < 2; ++i) {
    const auto& s = j[i];
    EXPECT_EQ(s["name"], expect[i].name);
    EXPECT_EQ(s["rows"], 18);
    EXPECT_EQ(s["bound_pct"], 0.0);  // held out
    EXPECT_GE(s["mape_pct"].get<double>(), expect[i].mape_lo) << expect[i].name;
    EXPECT_LE(s["mape_pct"].get<double>(), expect[i].mape_hi) << expect[i].name;
    for (const auto& row : s["detail"])
      EXPECT_EQ(row["predicted"].get<double>() > row["measured"].get<double>(), expect[i].slow)
          << row["label"];
  }
  const std::string file =
      std::string(DLSIM_DATA_DIR) + "/validation/cudnn_frontend_llama32_1b_h200_runs.csv";
  const Outcome c = RunDlsim("calibrate " + file + " --fit none --json", false);
  ASSERT_EQ(c.exit_code, 0) << c.output;
  const auto runs = nlohmann::json::parse(c.output)["runs"];
  ASSERT_EQ(runs.size(), 18u);
  for (size_t k = 0; k < runs.size(); ++k)
    EXPECT_DOUBLE_EQ(runs[k]["shipped_s"].get<double>(), j[0]["detail"][k]["predicted"].get<double>());
  const Outcome three = RunDlsim("validate --set cudnn-frontend-llama3.2-1b-b200 --calibrate-with 5");
  ASSERT_EQ(three.exit_code, 0) << three.output;
  EXPECT_NE(three.output.find("cudnn-frontend-llama3.2-1b-b200"), std::string::npos) << three.output;
}

}  // namespace
}  // namespace dlsim
