// The serving trace and token-file readers (io::ParseRequestTrace, io::ParseTokenColumn) and
// their use by `workload.trace_file`, with the fuzz regressions of docs/robustness.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serve_scenario.h"

namespace dlsim::io {
namespace {

std::string ReadRegression(const std::string& name) {
  std::ifstream in(std::string(DLSIM_TEST_DATA_DIR) + "/fuzz_regressions/" + name, std::ios::binary);
  EXPECT_TRUE(in) << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ParseRequestTrace, ReadsTheThreeColumnsInFileOrder) {
  auto t = ParseRequestTrace(
      "# a comment\nnum_decode_tokens,arrived_at,num_prefill_tokens,extra\n"
      "44,0.5,374,x\n109,0.25,396,y\n",
      "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  ASSERT_EQ(t->size(), 2u);
  EXPECT_DOUBLE_EQ((*t)[0].arrival_s, 0.5);
  EXPECT_EQ((*t)[0].prompt_tokens, 374);
  EXPECT_EQ((*t)[0].output_tokens, 44);
  EXPECT_DOUBLE_EQ((*t)[1].arrival_s, 0.25);
  EXPECT_EQ((*t)[1].prompt_tokens, 396);
  EXPECT_EQ((*t)[1].output_tokens, 109);
}

TEST(ParseRequestTrace, HeaderOnlyIsEmpty) {
  auto t = ParseRequestTrace("arrived_at,num_prefill_tokens,num_decode_tokens\n", "t.csv");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->empty());
}

TEST(ParseRequestTrace, ErrorsNameFileLineAndColumn) {
  auto missing = ParseRequestTrace("arrived_at,num_prefill_tokens\n0,1\n", "t.csv");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("num_decode_tokens"), std::string::npos) << missing.error().message;
  auto word = ParseRequestTrace("arrived_at,num_prefill_tokens,num_decode_tokens\n0,1,2\n0,abc,2\n", "t.csv");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(
      word.error().message,
      "t.csv:3:3: column 'num_prefill_tokens': expected an integer, found 'abc'; allowed: 1..16777216 (token "
      "counters are 32-bit; file an issue for longer requests)");
  // Token counts are integers in range, as in a scenario: a fraction, -5, 0 decode tokens, hex, inf.
  const std::string head = "arrived_at,num_prefill_tokens,num_decode_tokens\n";
  for (const char* row : {"0,396.9,2", "0,-5,2", "0,5,0", "0x10,5,2", "inf,5,2", "1e300,5,2"}) {
    auto bad = ParseRequestTrace(head + row + "\n", "t.csv");
    ASSERT_FALSE(bad.ok()) << row;
    EXPECT_EQ(bad.error().message.rfind("t.csv:2:", 0), 0u) << bad.error().message;
    EXPECT_NE(bad.error().message.find("allowed: "), std::string::npos) << bad.error().message;
  }
}

// Fuzz regression (fuzz_serve_trace, docs/robustness.md): a token count beyond int64_t was converted
// with static_cast<int64_t>, undefined behaviour (UBSan: "outside the range of representable values").
TEST(ParseRequestTrace, FuzzRegressionTokenCountBeyondInt64IsAnError) {
  auto t = ParseRequestTrace(ReadRegression("serve_trace_token_overflow.csv"), "overflow.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().code, ErrorCode::kParse);
  EXPECT_EQ(t.error().message,
            "overflow.csv:2:5: column 'num_prefill_tokens': expected an integer, found "
            "'92233720368547758084808'; allowed: 1..16777216 (token counters are 32-bit; file an issue for "
            "longer requests)");
  for (const char* cell : {"nan", "inf", "-1e19"}) {
    auto u = ParseRequestTrace(
        std::string("arrived_at,num_prefill_tokens,num_decode_tokens\n0,5,") + cell + "\n", "u.csv");
    ASSERT_FALSE(u.ok()) << cell;
    EXPECT_NE(u.error().message.find("column 'num_decode_tokens': expected an integer"), std::string::npos)
        << u.error().message;
  }
}

TEST(ParseRequestTrace, FuzzRegressionThroughTheScenario) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok()) << cat.error().message;
  const std::string yaml = "model: {name: llama2-7b}\nworkload:\n  arrival: trace\n  trace_file: " +
                           std::string(DLSIM_TEST_DATA_DIR) +
                           "/fuzz_regressions/serve_trace_token_overflow.csv\n";
  auto o = ParseServeScenario(yaml, "s.yaml", cat->hardware, cat->models, {{"vllm"}, {"round-robin"}});
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("s.yaml:4:15: workload.trace_file: "), std::string::npos)
      << o.error().message;
  EXPECT_NE(o.error().message.find("expected an integer"), std::string::npos) << o.error().message;
}

TEST(ParseTokenColumn, ReadsOneColumn) {
  auto v = ParseTokenColumn("a,b\n1,2\n3,4\n", "f.csv", "b");
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, (std::vector<double>{2, 4}));
  EXPECT_EQ(
      ParseTokenColumn("a,b\n1,2\n3,4.5\n", "f.csv", "b").error().message,
      "f.csv:3:3: column 'b': expected an integer, found '4.5'; allowed: 1..16777216 (token counters are "
      "32-bit; file an issue for longer requests)");
  auto missing = ParseTokenColumn("a,b\n1,2\n", "f.csv", "c");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace dlsim::io
