// `dlsim validate --cross-validate`: prints the in-sample, k-fold and leave-one-set-out MAPE of
// every fit set (a short run: two folds, one Nelder-Mead iteration per refit and stage).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

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
// slow (the lock is priced against the H200's sustained clock, bounded at 1830 MHz: an upper bound of what
// the free-clock rates held at; 14% against the 1980 MHz maximum, 7.5% against the bound) and the B200 rows
// at 1665 MHz fast (no Blackwell eager-kernel or xformers rates; the GEMM price holds on XLA's B200 table): a
// change to either moves this test. The same file read by `calibrate --fit none` gives the same predictions,
// and `--calibrate-with` calibrates on its rows.
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
  const Expect expect[] = {{"cudnn-frontend-llama3.2-1b-h200", 4, 11, true},
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

// The shipped step-time intervals of the held-out regimes (data/calibration/intervals.yaml, written by
// scripts/fit-intervals.py) are today's: other-stack's bounds are the 10th and 90th set-weighted percentiles
// of measured / predicted over the nine held-out published sets, measured-stack's over the project's two H200
// runs files and NVIDIA's H200 runs, each set weighing 1, as the script computes them. A change that moves a
// held-out prediction fails here until the script is run again (its docstring has the commands).
using Sets = std::map<std::string, std::vector<double>>;

double WeightedQuantile(const Sets& sets, double q) {
  std::vector<std::pair<double, double>> points;
  for (const auto& [name, ratios] : sets)
    for (double r : ratios) points.emplace_back(r, 1.0 / static_cast<double>(ratios.size()));
  std::sort(points.begin(), points.end());
  double total = 0, acc = 0;
  for (const auto& p : points) total += p.second;
  for (const auto& [r, w] : points) {
    acc += w;
    if (acc >= q * total - 1e-12) return r;
  }
  return points.empty() ? 1.0 : points.back().first;
}

// low, high, sets, rows of regime `name` in the shipped intervals file.
std::vector<double> Shipped(const std::string& name) {
  std::ifstream f(std::string(DLSIM_DATA_DIR) + "/calibration/intervals.yaml");
  std::string line;
  while (std::getline(f, line) && line != "  " + name + ":") {
  }
  std::vector<double> out;
  for (const char* key : {"    low: ", "    high: ", "    sets: ", "    rows: "})
    if (std::getline(f, line) && line.rfind(key, 0) == 0)
      out.push_back(std::stod(line.substr(std::string(key).size())));
  return out;
}

void ExpectShippedIs(const std::string& regime, const Sets& sets) {
  const std::vector<double> shipped = Shipped(regime);
  ASSERT_EQ(shipped.size(), 4u) << regime;
  size_t rows = 0;
  for (const auto& [name, ratios] : sets) rows += ratios.size();
  EXPECT_EQ(shipped[2], static_cast<double>(sets.size())) << regime;
  EXPECT_EQ(shipped[3], static_cast<double>(rows)) << regime;
  EXPECT_NEAR(shipped[0], std::min(WeightedQuantile(sets, 0.1), 1.0), 1e-4)
      << regime << ": run scripts/fit-intervals.py";
  EXPECT_NEAR(shipped[1], std::max(WeightedQuantile(sets, 0.9), 1.0), 1e-4)
      << regime << ": run scripts/fit-intervals.py";
}

TEST(ValidateCliTest, ShippedHeldOutIntervalsAreTodaysSpread) {
  const Outcome v = RunDlsim("validate --json", false);
  ASSERT_EQ(v.exit_code, 0) << v.output;
  const auto sets = nlohmann::json::parse(v.output);
  auto ratios = [&](const std::string& name) {
    std::vector<double> out;
    for (const auto& s : sets)
      if (s["name"] == name)
        for (const auto& r : s["detail"])
          if (r["feasible"].get<bool>() && r["predicted"].get<double>() > 0)
            out.push_back(r["measured"].get<double>() / r["predicted"].get<double>());
    return out;
  };
  Sets other;
  for (const char* name : {"megatron-bridge-dense-b200", "nemo-long-context-cp-b200", "torchtitan-a100-fsdp",
                           "torchtitan-h100-nd", "torchtitan-h100-405b-2d", "bloom-a100-jean-zay",
                           "flash-attention-gpt3", "cudnn-frontend-llama3.2-1b-b200"})
    other[name] = ratios(name);
  ExpectShippedIs("other-stack", other);
  Sets moe;
  for (const char* name : {"megatron-bridge-moe-b200", "megatron-core-moe-h100"}) moe[name] = ratios(name);
  ExpectShippedIs("moe", moe);
  Sets measured{{"cudnn-frontend-llama3.2-1b-h200", ratios("cudnn-frontend-llama3.2-1b-h200")}};
  for (const char* file : {"h200-fit-runs", "h200-heldout-runs"}) {
    const Outcome c = RunDlsim(std::string("calibrate ") + DLSIM_DATA_DIR + "/../examples/calibrate/" + file +
                                   ".csv --fit none --json",
                               false);
    ASSERT_EQ(c.exit_code, 0) << c.output;
    const auto runs = nlohmann::json::parse(c.output)["runs"];  // a copy: the parsed document is a temporary
    for (const auto& run : runs)
      measured[file].push_back(run["measured_s"].get<double>() / run["shipped_s"].get<double>());
  }
  ExpectShippedIs("measured-stack", measured);
}

}  // namespace
}  // namespace dlsim
