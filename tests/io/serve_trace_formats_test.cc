// The trace formats of io/serve_trace_formats.h: each sample file gives its rows as requests (arrival in
// seconds, prompt and output tokens, sorted), detected from the content or named; malformed rows are errors
// with file and line (and column or key); a serve scenario reads them through workload.trace_format.
#include "dlsim/io/serve_trace_formats.h"

#include <gtest/gtest.h>

#include <set>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/request.h"

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

// ShareGPT as benchmark_serving samples it: first turn the prompt, second the output, tokens = UTF-8
// characters / chars_per_token; a one-turn conversation and a 1-token prompt ("Hi") are left out; no arrival
// times.
TEST(TraceFormats, ShareGptConversationsAreLengthsWithoutArrivals) {
  const auto t = Read("sharegpt_sample.json");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].prompt_tokens, 12);  // 48 characters / 4
  EXPECT_EQ(t[0].output_tokens, 30);  // 120 / 4
  EXPECT_EQ(t[1].prompt_tokens, 11);  // 44 characters (accented letters count once) / 4
  EXPECT_EQ(t[1].output_tokens, 18);  // 71 / 4 = 17.75
  auto text = ReadTextFile(kDir + "sharegpt_sample.json");
  ASSERT_TRUE(text.ok());
  EXPECT_FALSE(TraceHasArrivals(*text, TraceFormat::kAuto));
  EXPECT_TRUE(TraceHasArrivals(*text, TraceFormat::kVidur));
  auto coarse = ParseTraceFile(*text, "s.json", TraceFormat::kShareGpt, 2.0);
  ASSERT_TRUE(coarse.ok()) << coarse.error().message;
  ASSERT_EQ(coarse->size(), 2u);
  EXPECT_EQ((*coarse)[0].prompt_tokens, 24);
  // benchmark_serving's length filter: a prompt over 1024 tokens, or both over 2048, is left out.
  const std::string long_prompt = std::string(4 * 1025, 'x'), long_output = std::string(4 * 1100, 'y');
  const std::string filtered = "[{\"conversations\": [{\"value\": \"" + long_prompt +
                               "\"}, {\"value\": \"abcdefghijklmnop\"}]}," +
                               "{\"conversations\": [{\"value\": \"" + std::string(4 * 1000, 'x') +
                               "\"}, {\"value\": \"" + long_output + "\"}]}]";
  auto none = ParseTraceFile(filtered, "f.json", TraceFormat::kShareGpt);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_TRUE(none->empty());
}

TEST(TraceFormats, MalformedShareGptIsALocatedError) {
  auto text = ReadTextFile(kDir + "sharegpt_bad.json");
  ASSERT_TRUE(text.ok());
  auto r = ParseTraceFile(*text, "sharegpt_bad.json", TraceFormat::kAuto);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(
      r.error().message.find("sharegpt_bad.json: ShareGPT: conversation 2: a turn's value must be a string"),
      std::string::npos)
      << r.error().message;
  for (const char* bad :
       {"[1, 2]", "{\"conversations\": []}", "[[]]", "[{\"conversations\": [{\"value\": \"ab"}) {
    auto e = ParseTraceFile(bad, "x.json", TraceFormat::kShareGpt);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error().message.find("x.json"), std::string::npos) << e.error().message;
  }
  auto cut = ParseTraceFile("[\n{\"conversations\": [{\"value\": \"ab", "x.json", TraceFormat::kShareGpt);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("x.json:2: ShareGPT"), std::string::npos) << cut.error().message;
}

// A lengths-only CSV (a tokenized sample such as data/lengths/sharegpt_v3_llama3.csv) is read in file order
// without arrival times, detected from its header; a bad cell is an error at its line and column, and a
// scenario needs rate and takes the file's first `requests`.
TEST(TraceFormats, LengthsOnlyCsvHasNoArrivals) {
  auto text = ReadTextFile(kDir + "lengths_sample.csv");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(ResolveTraceFormat(*text, "l.csv", TraceFormat::kAuto), TraceFormat::kLengths);
  EXPECT_FALSE(TraceHasArrivals(*text, TraceFormat::kAuto));
  EXPECT_TRUE(
      TraceHasArrivals("arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,1\n", TraceFormat::kAuto));
  const auto t = Read("lengths_sample.csv");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].prompt_tokens, 25);
  EXPECT_EQ(t[1].output_tokens, 770);
  auto bad = ReadTextFile(kDir + "lengths_bad.csv");
  ASSERT_TRUE(bad.ok());
  auto e = ParseTraceFile(*bad, "lengths_bad.csv", TraceFormat::kAuto);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("lengths_bad.csv:3"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("num_prefill_tokens"), std::string::npos) << e.error().message;
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const ServeNames names{{"vllm"}, {"round-robin"}};
  const std::string y = "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: lengths_sample.csv";
  auto norate = ParseServeScenario(y + "}\n", "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_FALSE(norate.ok());
  EXPECT_NE(norate.error().message.find("give rate"), std::string::npos) << norate.error().message;
  // A closed loop needs no rate (every request ready at once); concurrency 0 is an error at its key.
  auto closed =
      ParseServeScenario(y + ", concurrency: 2}\n", "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_TRUE(closed.ok()) << closed.error().message;
  EXPECT_EQ(closed->workload.concurrency, 2);
  EXPECT_EQ(closed->workload.rate, 0);
  EXPECT_NE(SummarizeServeOptions(*closed).find("trace (all ready at once); closed loop, 2 in flight"),
            std::string::npos)
      << SummarizeServeOptions(*closed);
  auto zero =
      ParseServeScenario(y + ", concurrency: 0}\n", "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(zero.error().message.find("workload.concurrency"), std::string::npos) << zero.error().message;
  auto g =
      ParseServeScenario(y + ", rate: 2, requests: 1}\n", "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_TRUE(g.ok()) << g.error().message;
  auto reqs = serve::GenerateRequests(g->workload);
  ASSERT_TRUE(reqs.ok()) << reqs.error().message;
  ASSERT_EQ(reqs->size(), 1u);
  EXPECT_EQ((*reqs)[0].prompt, 13);
  EXPECT_GT((*reqs)[0].arrival, TimePoint::Start());
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
  // ShareGPT has no arrival times: rate is required and gives Poisson arrivals, in file order.
  const std::string sharegpt =
      "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: sharegpt_sample.json";
  auto norate = ParseServeScenario(sharegpt + "}\n", "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_FALSE(norate.ok());
  EXPECT_NE(norate.error().message.find("give rate"), std::string::npos) << norate.error().message;
  auto g = ParseServeScenario(sharegpt + ", rate: 2, chars_per_token: 3.5}\n", "s.yaml", cat->hardware,
                              cat->models, names, kDir);
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_FALSE(g->workload.trace_arrivals);
  EXPECT_EQ(g->workload.trace[0].prompt_tokens, 14);  // 48 / 3.5 = 13.7
  auto reqs = serve::GenerateRequests(g->workload);
  ASSERT_TRUE(reqs.ok()) << reqs.error().message;
  ASSERT_EQ(reqs->size(), 2u);
  EXPECT_GT((*reqs)[0].arrival, TimePoint::Start());
  EXPECT_GT((*reqs)[1].arrival, (*reqs)[0].arrival);
  EXPECT_EQ((*reqs)[1].prompt, 13);  // 44 / 3.5 = 12.6, in file order
  auto stray = ParseServeScenario(
      "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: mooncake_sample.jsonl, "
      "chars_per_token: 3}\n",
      "s.yaml", cat->hardware, cat->models, names, kDir);
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.error().message.find("only used with a ShareGPT trace"), std::string::npos)
      << stray.error().message;
}

// Mooncake's hash_ids are the prompts' prefix chunks, 512 tokens each unless prefix_block_tokens says
// otherwise; malformed ids, a shared prefix beside them, a chunk that is not a multiple of the KV block, and
// the prefix keys without prefixes are errors at their key.
TEST(TraceFormats, MooncakeHashIdsArePrefixChunks) {
  auto text = ReadTextFile(kDir + "mooncake_sample.jsonl");
  ASSERT_TRUE(text.ok());
  std::vector<uint64_t> hashes;
  auto t = ParseTraceFile(*text, "m.jsonl", TraceFormat::kAuto, kDefaultCharsPerToken, &hashes);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(hashes, (std::vector<uint64_t>{46, 47, 46, 47, 46}));
  EXPECT_EQ((*t)[2].prefix_first, 4);
  EXPECT_EQ((*t)[2].prefix_chunks, 1);
  for (const char* bad : {R"({"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": ["a"]})",
                          R"({"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": [-1]})",
                          R"({"timestamp": 0, "input_length": 2, "output_length": 1, "hash_ids": [1, 2, 3]})",
                          R"({"timestamp": 0, "input_length": 9, "output_length": 1, "hash_ids": 4})"}) {
    auto e = ParseTraceFile(std::string("\n") + bad, "m.jsonl", TraceFormat::kMooncake, 4, &hashes);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_NE(e.error().message.find("m.jsonl:2: 'hash_ids'"), std::string::npos) << e.error().message;
  }
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const ServeNames names{{"distserve", "orca", "sarathi", "vllm"}, {"round-robin"}};
  const std::string trace =
      "model: {name: llama3-8b}\nworkload: {arrival: trace, trace_file: mooncake_sample.jsonl";
  auto parse = [&](const std::string& yaml) {
    return ParseServeScenario(yaml, "s.yaml", cat->hardware, cat->models, names, kDir);
  };
  auto s = parse(trace + "}\nengine: vllm-v1\n");
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->workload.prefix_block_tokens, 512);
  EXPECT_EQ(s->workload.prefix_hashes.size(), 5u);
  EXPECT_TRUE(s->scheduler.prefix_caching);  // vLLM V1's default
  auto v06 = parse(trace + "}\nengine: vllm-0.6\n");
  ASSERT_TRUE(v06.ok()) << v06.error().message;
  EXPECT_FALSE(v06->scheduler.prefix_caching);
  const std::pair<std::string, std::string> errors[] = {
      {trace + ", shared_prefix: {tokens: 100}}\n", "s.yaml:2:78: workload.shared_prefix: the trace gives"},
      {trace + ", prefix_block_tokens: 24}\n", "workload.prefix_block_tokens: a prefix chunk of 24 tokens"},
      {"model: {name: llama3-8b}\nworkload: {prefix_block_tokens: 32}\n",
       "workload.prefix_block_tokens: only used with shared_prefix"},
      {"model: {name: llama3-8b}\nworkload: {shared_prefix: {groups: 3}}\n",
       "workload.shared_prefix: give tokens"}};
  for (const auto& [yaml, message] : errors) {
    auto e = parse(yaml);
    ASSERT_FALSE(e.ok()) << yaml;
    EXPECT_NE(e.error().message.find(message), std::string::npos) << e.error().message;
  }
  auto shared = parse("model: {name: llama3-8b}\nworkload: {shared_prefix: {tokens: 300, groups: 3}}\n");
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  auto reqs = serve::GenerateRequests(shared->workload);
  ASSERT_TRUE(reqs.ok()) << reqs.error().message;
  std::set<int32_t> groups;
  for (const serve::Request& r : *reqs) groups.insert(r.prefix_group);
  EXPECT_EQ(groups, (std::set<int32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace dlsim::io
