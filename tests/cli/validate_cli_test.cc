// `dlsim validate --cross-validate`: prints the in-sample, k-fold and leave-one-set-out MAPE of
// every fit set (a short run: two folds, one Nelder-Mead iteration per refit and stage).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/run_dlsim.h"

namespace dlsim {
namespace {

using testing::Outcome;
using testing::RunDlsim;

const char kShortRun[] = "validate --cross-validate --folds 2 --cv-iterations 1 --loso-iterations 1";

TEST(ValidateCliTest, CrossValidatePrintsTheThreeColumnsPerFitSet) {
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

}  // namespace
}  // namespace dlsim
