// The file outputs of the commands: --html (a self-contained page of charts) and --csv (the
// per-record tables). Results never depend on them: stdout is the same with and without.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/run_dlsim.h"

namespace dlsim {
namespace {

using testing::Outcome;
using testing::ReadFile;
using testing::RunDlsim;

std::string Tmp(const std::string& name) { return ::testing::TempDir() + "report_files_" + name; }
const std::string kData = DLSIM_DATA_DIR;
const std::string kTestData = DLSIM_TEST_DATA_DIR;

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

void ExpectSelfContained(const std::string& html) {
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href="), std::string::npos);
  EXPECT_EQ(html.find("nan"), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReport, TrainShowsTheTimelineMemoryAndBreakdownAndChangesNoResult) {
  const std::string scenario = kData + "/scenarios/llama3_8b_dp16_h100.yaml", page = Tmp("train.html");
  const Outcome plain = RunDlsim("train " + scenario + " --json", false);
  const Outcome with = RunDlsim("train " + scenario + " --json --html " + page, false);
  ASSERT_EQ(with.exit_code, 0) << with.output;
  EXPECT_EQ(with.output, plain.output);
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 3u);
  EXPECT_NE(html.find("<h2>Pipeline timeline</h2>"), std::string::npos);
  EXPECT_NE(html.find("pipeline rank 0 / compute"), std::string::npos);
  EXPECT_NE(html.find(">forward</text>"), std::string::npos);  // the legend names the span kinds
  EXPECT_NE(html.find(">backward</text>"), std::string::npos);
  EXPECT_NE(html.find("<h2>Memory</h2>"), std::string::npos);
  // The summary says how sure its two predictions are, as the report does: the step time's interval in its
  // regime and the peak memory's.
  EXPECT_EQ(Count(html, "80% interval"), 2u);
  EXPECT_NE(html.find(", fitted-stack)"), std::string::npos);
  EXPECT_NE(html.find(" GiB, memory)"), std::string::npos);
}

// The nearest-rank quantile, as core/stats Summarize computes it.
double NearestRank(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  return v[std::max<size_t>(rank, 1) - 1];
}

TEST(CsvReport, ServeRequestsAreTheRecordsTheMetricsSummarise) {
  const std::string dir = Tmp("serve_csv");
  const Outcome r = RunDlsim("serve " + kTestData + "/report/serve_small.yaml --json --csv " + dir, false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  std::istringstream csv(ReadFile(dir + "/requests.csv"));
  std::string line;
  std::getline(csv, line);
  ASSERT_EQ(line.rfind("id,replica,prompt_tokens,output_tokens,arrival_s", 0), 0u) << line;
  std::vector<double> ttft, tpot, itl_max;
  std::vector<int> replicas(2, 0);
  int rows = 0, met = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    ASSERT_EQ(f.size(), 17u) << line;
    EXPECT_EQ(f[16], "0");  // cached_tokens: no prefix caching
    EXPECT_EQ(std::stoi(f[0]), rows++);
    ++replicas.at(std::stoi(f[1]));
    EXPECT_LE(std::stod(f[4]), std::stod(f[5]));  // arrival <= first scheduled <= first token <= finish
    EXPECT_LE(std::stod(f[5]), std::stod(f[6]));
    EXPECT_LE(std::stod(f[6]), std::stod(f[7]));
    ttft.push_back(std::stod(f[8]));
    tpot.push_back(std::stod(f[9]));
    itl_max.push_back(std::stod(f[10]));
    EXPECT_GE(itl_max.back(), tpot.back() * (1 - 1e-9));  // the longest gap is at least the mean gap
    met += f[15] == "1";
  }
  EXPECT_EQ(rows, j["requests_total"].get<int>());
  EXPECT_GT(replicas[0], 0);  // the router used both replicas
  EXPECT_GT(replicas[1], 0);
  EXPECT_NEAR(NearestRank(ttft, 0.5), j["ttft_s"]["p50"].get<double>(), 1e-8);
  EXPECT_NEAR(NearestRank(tpot, 0.99), j["tpot_s"]["p99"].get<double>(), 1e-8);
  // The run's longest inter-token gap is the longest of any request's.
  EXPECT_NEAR(*std::max_element(itl_max.begin(), itl_max.end()), j["itl_s"]["max"].get<double>(), 1e-8);
  EXPECT_NEAR(static_cast<double>(met) / rows, j["slo_attainment"].get<double>(), 1e-12);
}

TEST(HtmlReport, ServeHasLatencyCdfsAndTimeSeries) {
  const std::string page = Tmp("serve.html");
  const Outcome r = RunDlsim("serve " + kTestData + "/report/serve_small.yaml --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("html: " + page), std::string::npos);
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 6u);
  for (const char* h : {"Time to first token", "Time per output token", "End-to-end latency",
                        "Throughput over time", "Queue length over time", "KV-cache use over time"})
    EXPECT_NE(html.find(std::string("<h2>") + h + "</h2>"), std::string::npos) << h;
  EXPECT_EQ(Count(html, "no data"), 0u);
  // The TTFT and TPOT SLOs (1 s, 50 ms) as lines on their CDFs (issue 36), each named in its legend.
  EXPECT_EQ(Count(html, ">SLO</text>"), 2u);
  // The request throughput, mean TTFT and mean TPOT carry their intervals, as in the report (issue 37).
  EXPECT_EQ(Count(html, "80% interval"), 3u);
  EXPECT_NE(html.find("requests/s (80% interval"), std::string::npos);
}

TEST(HtmlReport, PlanMarksTheBestLayoutOnItsParetoFront) {
  const std::string page = Tmp("plan.html");
  const Outcome r = RunDlsim("plan " + kTestData + "/plan/small_13b.yaml --quiet --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 2u);
  EXPECT_EQ(Count(html, ">best</text>"), 2u);
  EXPECT_EQ(Count(html, ">scenario</text>"), 2u);
  EXPECT_NE(html.find(">Pareto front</text>"), std::string::npos);
  // The best layout's interval, the layouts that tie with it, and those that may not fit (issue 32).
  EXPECT_NE(html.find("other feasible layouts tie with it)"), std::string::npos);
  EXPECT_NE(html.find("feasible layouts fit at their predicted peak but not at the 80% interval"),
            std::string::npos);
  // Reasons group with their figures replaced, not the digits of names (issue 36: "h#-sxm#-#gb").
  EXPECT_NE(html.find("needs # GiB, the h100-sxm5-80gb has # GiB"), std::string::npos);
  EXPECT_EQ(html.find("h#-sxm"), std::string::npos);
}

TEST(HtmlReport, ClusterCompareDrawsOneSeriesPerPolicy) {
  const std::string page = Tmp("cluster.html");
  const Outcome r =
      RunDlsim("cluster " + kTestData + "/report/cluster_small.yaml --compare fifo,las --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 3u);
  EXPECT_EQ(Count(html, ">fifo</text>"), 3u);  // one legend entry per chart
  EXPECT_EQ(Count(html, ">las</text>"), 3u);
}

TEST(HtmlReport, GnnDrawsTheStagesAgainstTheEpochAndChangesNoResult) {
  const std::string scenario = kData + "/scenarios/gnn_small.yaml", page = Tmp("gnn.html");
  const Outcome plain = RunDlsim("gnn " + scenario + " --json", false);
  const Outcome with = RunDlsim("gnn " + scenario + " --json --html " + page, false);
  ASSERT_EQ(with.exit_code, 0) << with.output;
  EXPECT_EQ(with.output, plain.output);
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 3u);
  for (const char* stage : {">sample<", ">gather<", ">copy<", ">compute<"})
    EXPECT_NE(html.find(stage), std::string::npos);
  EXPECT_NE(html.find(">epoch</text>"), std::string::npos);  // the epoch as the stages' reference line
  const std::string compare = Tmp("gnn_compare.html");
  ASSERT_EQ(RunDlsim("gnn " + scenario + " --compare --html " + compare).exit_code, 0);
  EXPECT_EQ(Count(ReadFile(compare), "<figure>"), 2u);
}

TEST(HtmlReport, ValidateDrawsEverySetsErrorsWithItsBound) {
  const std::string page = Tmp("validate.html");
  const Outcome r = RunDlsim("validate --set korthikanti-2022 --summary --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 1u + 3u);  // MAPE per set, one error chart per set
  EXPECT_NE(html.find(">+5% (CI bound)</text>"), std::string::npos);
  EXPECT_NE(html.find(">+10% (CI bound)</text>"), std::string::npos);  // the memory set's bound
  EXPECT_NE(html.find("<h2>korthikanti-2022-memory: rows</h2>"), std::string::npos);
}

TEST(HtmlReport, ReproSetsTheHeadlineInThePapersBand) {
  const std::string page = Tmp("repro.html");
  const Outcome r = RunDlsim("repro flash-llm --html " + page);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = ReadFile(page);
  ExpectSelfContained(html);
  EXPECT_EQ(Count(html, "<figure>"), 2u);
  EXPECT_NE(html.find(">band high</text>"), std::string::npos);
  EXPECT_NE(html.find("reproduced: "), std::string::npos);  // the verdict in the summary
}

TEST(HtmlReport, BadPathsAreErrorsAndNeverOverwriteTheScenario) {
  const std::string copy = Tmp("scenario.yaml");
  const std::string text = ReadFile(kTestData + "/report/serve_small.yaml");
  std::ofstream(copy) << text;
  Outcome r = RunDlsim("serve " + copy + " --html " + copy);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("would overwrite the input"), std::string::npos) << r.output;
  EXPECT_EQ(ReadFile(copy), text);
  r = RunDlsim("train " + kData + "/scenarios/llama3_8b_dp16_h100.yaml --html /nonexistent-dir/x.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot write the HTML report '/nonexistent-dir/x.html'"), std::string::npos)
      << r.output;
  r = RunDlsim("serve " + copy + " --capacity --html " + Tmp("cap.html"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// No output flag of any command may overwrite a file the run read: the scenario itself or a data file it
// names (a request trace, a job trace). Each is refused with exit 1 before anything is written.
TEST(OutputFiles, NeverOverwriteAnInputOfTheRun) {
  const std::string dir = Tmp("inputs/");
  std::filesystem::create_directories(dir);
  const std::string trace = dir + "requests.csv";
  std::ofstream(trace) << "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,100,20\n0.5,200,30\n";
  std::ofstream(dir + "serve.yaml") << "model: {name: llama2-7b}\nhardware: {gpu: a100-sxm4-80gb}\n"
                                       "workload: {arrival: trace, trace_file: requests.csv}\n";
  const std::string plan = dir + "plan.yaml";
  std::ofstream(plan) << ReadFile(kData + "/scenarios/plan_nemo_llama2-7b_8gpu.yaml");
  const std::string cluster = dir + "cluster.yaml";
  std::ofstream(cluster) << ReadFile(kData + "/scenarios/cluster_gavel_synthetic.yaml");
  const std::string before_trace = ReadFile(trace), before_plan = ReadFile(plan),
                    before_cluster = ReadFile(cluster);
  const std::vector<std::string> runs = {
      "serve " + dir + "serve.yaml --trace " + trace, "serve " + dir + "serve.yaml --html " + trace,
      "serve " + dir + "serve.yaml --csv " + dir,     "plan " + plan + " --quiet --write-best " + plan,
      "plan " + plan + " --quiet --csv " + plan,      "plan " + plan + " --quiet --html " + plan,
      "cluster " + cluster + " --csv " + cluster,     "cluster " + cluster + " --series " + cluster,
      "cluster " + cluster + " --html " + cluster,    "cluster " + cluster + " --trace " + cluster};
  for (const std::string& run : runs) {
    Outcome r = RunDlsim(run);
    EXPECT_EQ(r.exit_code, 1) << run << "\n" << r.output;
    EXPECT_NE(r.output.find("would overwrite"), std::string::npos) << run << "\n" << r.output;
  }
  EXPECT_EQ(ReadFile(trace), before_trace);
  EXPECT_EQ(ReadFile(plan), before_plan);
  EXPECT_EQ(ReadFile(cluster), before_cluster);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dlsim
