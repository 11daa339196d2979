// The trace formats of io/serve_trace_formats.h: each sample file gives its rows as requests (arrival in
// seconds, prompt and output tokens, sorted), detected from the content or named; malformed rows are errors
// with file and line (and column or key); a serve scenario reads them through workload.trace_format.
#include "dlsim/io/serve_trace_formats.h"

#include <gtest/gtest.h>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

const std::string kDir = std::string(DLSIM_TEST_DATA_DIR) + "/serve_traces/";

std::vector<serve::TraceEntry> Read(const std::string& file, TraceFormat format = TraceFormat::kAuto) {
  auto text = ReadTextFile(kDir + file);
  EXPECT_TRUE(text.ok());
  auto r = ParseTraceFile(*text, file, format);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? *r : std::vector<serve::TraceEntry>{};
}

TEST(TraceFormats, AzureArrivalsAreSecondsAfterTheFirstTimestamp) {
  const auto t = Read("azure_sample.csv");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_DOUBLE_EQ(t[0].arrival_s, 0);
  EXPECT_NEAR(t[1].arrival_s, 50.9951690 - 46.6805900, 1e-6);
  EXPECT_NEAR(t[2].arrival_s, 51.0702220 - 46.6805900, 1e-6);
  EXPECT_EQ(t[2].prompt_tokens, 879);
  EXPECT_EQ(t[2].output_tokens, 143);
  EXPECT_EQ(Read("azure_sample.csv", TraceFormat::kAzure).size(), 3u);
}

TEST(TraceFormats, BurstGptLeavesOutFailedRequests) {
  const auto t = Read("burstgpt_sample.csv");
  ASSERT_EQ(t.size(), 2u);  // the row with 0 response tokens is a failed request
  EXPECT_DOUBLE_EQ(t[0].arrival_s, 5);
  EXPECT_EQ(t[1].prompt_tokens, 417);
  EXPECT_EQ(t[1].output_tokens, 276);
}

TEST(TraceFormats, MooncakeTimestampsAreMilliseconds) {
  const auto t = Read("mooncake_sample.jsonl");
  ASSERT_EQ(t.size(), 3u);  // the blank line is skipped
  EXPECT_DOUBLE_EQ(t[1].arrival_s, 27.482);
  EXPECT_EQ(t[2].prompt_tokens, 6174);
  EXPECT_EQ(t[2].output_tokens, 24);
}

TEST(TraceFormats, MalformedRowsAreLocatedErrors) {
  auto time = ReadTextFile(kDir + "azure_bad_time.csv");
  auto r = ParseTraceFile(*time, "azure_bad_time.csv", TraceFormat::kAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("azure_bad_time.csv:3:1: column 'TIMESTAMP'"), std::string::npos)
      << r.error().message;
  auto bad = ReadTextFile(kDir + "mooncake_bad.jsonl");
  r = ParseTraceFile(*bad, "mooncake_bad.jsonl", TraceFormat::kAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("mooncake_bad.jsonl:2: 'input_length'"), std::string::npos)
      << r.error().message;
  r = ParseTraceFile("Timestamp,Request tokens,Response tokens\n1,-3,5\n", "b.csv", TraceFormat::kBurstGpt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("b.csv:2:"), std::string::npos) << r.error().message;
  r = ParseTraceFile("arrived_at,x\n1,2\n", "v.csv", TraceFormat::kAzure);  // named format, wrong columns
  ASSERT_FALSE(r.ok());
}

TEST(TraceFormats, ServeScenarioReadsThemThroughTraceFormat) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const ServeNames names{{"distserve", "orca", "sarathi", "vllm"},
                         {"least-outstanding-tokens", "round-robin"}};
  auto s = ParseServeScenario(
      "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: mooncake_sample.jsonl, trace_format: "
      "mooncake}\n",
      "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->workload.trace.size(), 3u);
  auto wrong = ParseServeScenario(
      "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: mooncake_sample.jsonl, trace_format: "
      "mooncak}\n",
      "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.error().message.find("did you mean 'mooncake'"), std::string::npos)
      << wrong.error().message;
}

}  // namespace
}  // namespace dlsim::io
