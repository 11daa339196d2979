#include "dlsim/data/length_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <sstream>

namespace dlsim::data {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<LengthSource> Make(const LengthSpec& spec) {
  auto r = MakeLengthSource(spec);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return std::move(r).value();
}

TEST(LengthSource, FixedAndTruncation) {
  LengthSpec s{.distribution = "fixed", .value = 1000};
  Rng rng(1);
  EXPECT_EQ(Make(s)->Draw(rng), 1000);
  s.max_len = 300;
  EXPECT_EQ(Make(s)->Draw(rng), 300);
  EXPECT_DOUBLE_EQ(Make(s)->Mean(), 1000);  // before truncation
}

TEST(LengthSource, UniformIsInclusiveAndCoversTheRange) {
  LengthSpec s{.distribution = "uniform", .low = 10, .high = 13};
  auto src = Make(s);
  Rng rng(3);
  std::vector<int> seen(20, 0);
  for (int i = 0; i < 4000; ++i) {
    int64_t l = src->Draw(rng);
    ASSERT_GE(l, 10);
    ASSERT_LE(l, 13);
    ++seen[l];
  }
  for (int v = 10; v <= 13; ++v) EXPECT_GT(seen[v], 800) << v;
  EXPECT_DOUBLE_EQ(src->Mean(), 11.5);
}

TEST(LengthSource, LognormalMedianAndMean) {
  LengthSpec s{.distribution = "lognormal", .median = 1500, .sigma = 1.0};
  auto src = Make(s);
  Rng rng(5);
  std::vector<int64_t> v;
  for (int i = 0; i < 20001; ++i) v.push_back(src->Draw(rng));
  std::nth_element(v.begin(), v.begin() + 10000, v.end());
  EXPECT_NEAR(v[10000], 1500, 60);
  EXPECT_NEAR(src->Mean(), 1500 * std::exp(0.5), 1e-6);
}

TEST(LengthSource, ParetoMixHasItsTail) {
  LengthSpec s{.distribution = "pareto_mix",
               .median = 600,
               .sigma = 0.7,
               .tail_fraction = 0.005,
               .tail_min = 4096,
               .tail_alpha = 1.1};
  s.max_len = 300000;
  auto src = Make(s);
  Rng rng(11);
  int over4k = 0, n = 200000;
  int64_t longest = 0;
  for (int i = 0; i < n; ++i) {
    int64_t l = src->Draw(rng);
    over4k += l >= 4096;
    longest = std::max(longest, l);
  }
  // The LMSys-Chat-like mix of docs/data.md: more than 99% under 4K, a long
  // tail to 300K.
  EXPECT_LT(over4k, n / 100);
  EXPECT_GT(over4k, n / 500);
  EXPECT_GT(longest, 100000);
  EXPECT_LE(longest, 300000);
}

TEST(LengthSource, DeterministicGivenTheSeed) {
  LengthSpec s{.distribution = "lognormal", .median = 2000, .sigma = 1.6};
  auto src = Make(s);
  Rng a = Rng(7).Stream("data/lengths"), b = Rng(7).Stream("data/lengths"), c = Rng(8).Stream("data/lengths");
  auto da = DrawDocuments(*src, a, 1 << 20, 0), db = DrawDocuments(*src, b, 1 << 20, 0);
  auto dc = DrawDocuments(*src, c, 1 << 20, 0);
  EXPECT_EQ(da, db);
  EXPECT_NE(da, dc);
}

TEST(LengthSource, DrawDocumentsReachesTheBudget) {
  LengthSpec s{.distribution = "uniform", .low = 100, .high = 5000};
  auto src = Make(s);
  Rng rng(2);
  auto docs = DrawDocuments(*src, rng, 100000, 1000);
  int64_t total = std::accumulate(docs.begin(), docs.end(), int64_t{0});
  EXPECT_GE(total, 100000);
  EXPECT_LT(total - docs.back(),
            100000);  // stops at the first document that reaches it
  for (int64_t l : docs) EXPECT_LE(l, 1000);
  EXPECT_TRUE(DrawDocuments(*src, rng, 0, 0).empty());
}

TEST(LengthSource, BadSpecsAreErrors) {
  std::vector<std::pair<LengthSpec, std::string>> cases = {
      {{.distribution = "lognormall", .median = 1, .sigma = 1}, "did you mean 'lognormal'"},
      {{.distribution = "fixed", .value = 0}, "fixed value"},
      {{.distribution = "uniform", .low = 10, .high = 5}, "high"},
      {{.distribution = "uniform", .low = 0, .high = 5}, "low"},
      {{.distribution = "lognormal", .median = 0, .sigma = 1}, "median"},
      {{.distribution = "lognormal", .median = 10, .sigma = -1}, "sigma"},
      {{.distribution = "pareto_mix",
        .median = 10,
        .sigma = 1,
        .tail_fraction = 1.5,
        .tail_min = 5,
        .tail_alpha = 1},
       "tail_fraction"},
      {{.distribution = "pareto_mix",
        .median = 10,
        .sigma = 1,
        .tail_fraction = 0.1,
        .tail_min = 5,
        .tail_alpha = 0},
       "tail_alpha"},
      {{.distribution = "empirical"}, "no lengths"},
      {{.distribution = "empirical", .values = {5, 6}, .weights = {1}}, "differ"},
      {{.distribution = "empirical", .values = {5}, .weights = {-1}}, "negative"},
      {{.distribution = "empirical", .values = {5}, .weights = {0}}, "zero"},
  };
  for (const auto& [spec, needle] : cases) {
    auto r = MakeLengthSource(spec);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  }
}

TEST(LengthFile, JsonListAndHistogramAgree) {
  auto list = ParseLengthFile("[5, 3, 5, 9]", "a.json", "");
  auto hist = ParseLengthFile(R"({"9": 1, "5": 2, "3": 1})", "b.JSON", "");
  ASSERT_TRUE(list.ok()) << list.error().message;
  ASSERT_TRUE(hist.ok()) << hist.error().message;
  EXPECT_EQ(list->values, (std::vector<double>{3, 5, 9}));
  EXPECT_EQ(list->weights, (std::vector<double>{1, 2, 1}));
  EXPECT_EQ(hist->values, list->values);
  EXPECT_EQ(hist->weights, list->weights);
  EXPECT_EQ(list->distribution, "empirical");
  EXPECT_DOUBLE_EQ(Make(*list)->Mean(), 22.0 / 4);
}

TEST(LengthFile, CsvColumn) {
  std::string csv =
      "arrived_at,num_prefill_tokens,num_decode_tokens\n0.0,374,"
      "44\r\n4.3,396,109\n\n5.0,374,7\n";
  auto r = ParseLengthFile(csv, "conv.csv", "");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->values, (std::vector<double>{374, 396}));
  EXPECT_EQ(r->weights, (std::vector<double>{2, 1}));
  auto d = ParseLengthFile(csv, "conv.csv", "num_decode_tokens");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->values, (std::vector<double>{7, 44, 109}));
}

TEST(LengthFile, BadFilesAreErrors) {
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {"[1, 2", "x.json", "", "malformed"},
      {"[1, -2]", "x.json", "", "entry 1"},
      {"[1, 2.5]", "x.json", "", "entry 1"},
      {R"({"abc": 3})", "x.json", "", "key 'abc'"},
      {R"({"10": -3})", "x.json", "", "count"},
      {"[]", "x.json", "", "no lengths"},
      {"\"hello\"", "x.json", "", "expected a list"},
      {"a,b\n1,2\n", "x.csv", "", "no column 'num_prefill_tokens'; columns: a, b"},
      {"a,b\n1,2\n3,x\n", "x.csv", "b", "x.csv:3"},
      {"a,b\n1\n", "x.csv", "b", "missing field"},
      {"1 2 3", "x.txt", "", "unknown length-file format"},
  };
  for (const auto& [text, file, col, needle] : cases) {
    auto r = ParseLengthFile(text, file, col);
    ASSERT_FALSE(r.ok()) << needle;
    EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
  }
}

// Fuzz regression (fuzz_length_file, docs/robustness.md), and the 2^30-token cap (issue 18): a CSV
// token count beyond int64_t was
// converted with static_cast<int64_t>, undefined behaviour (UBSan: "2.776e+27 is outside the range
// of representable values of type 'long'"). The fuzzer's input, then the minimised one.
TEST(LengthFile, FuzzRegressionCsvCountBeyondInt64IsAnError) {
  auto r = ParseLengthFile(
      ReadFile(std::string(DLSIM_TEST_DATA_DIR) + "/fuzz_regressions/length_file_count_overflow.csv"),
      "overflow.csv", "num_decode_tokens");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kParse);
  EXPECT_EQ(r.error().message.rfind("overflow.csv:", 0), 0u) << r.error().message;  // located, no UB
  auto m = ParseLengthFile("num_decode_tokens\n6e96\n", "m.csv", "num_decode_tokens");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "m.csv:2: column 'num_decode_tokens': expected an integer token count in 1..1073741824, found "
            "'6e96'");
  auto big = ParseLengthFile("num_prefill_tokens\n1073741824\n", "b.csv", "");
  ASSERT_TRUE(big.ok()) << big.error().message;  // the cap itself (2^30 tokens) still reads
  EXPECT_EQ(big->values, (std::vector<double>{1073741824.0}));
  auto over = ParseLengthFile("num_prefill_tokens\n1073741825\n", "o.csv", "");
  EXPECT_FALSE(over.ok());
  auto quoted = ParseLengthFile("num_prefill_tokens\n\"12,500\"\n", "q.csv", "");
  ASSERT_FALSE(quoted.ok());
  EXPECT_NE(quoted.error().message.find("quoted fields are not supported"), std::string::npos);
}

TEST(LengthFile, DistcaFilesParse) {
  // Counts and means of the source files (hao-ai-lab/DistCA dist_wlbllm.json,
  // dist_prolong.json).
  struct Case {
    std::string file;
    double documents, mean;
    double max;
  };
  for (const Case& c : {Case{"distca_wlbllm_hist.json", 99519, 3961.787, 124913},
                        Case{"distca_prolong_hist.json", 77932, 3051.903, 340149}}) {
    std::string text = ReadFile(std::string(DLSIM_DATA_DIR) + "/lengths/" + c.file);
    ASSERT_FALSE(text.empty()) << c.file;
    auto r = ParseLengthFile(text, c.file, "");
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_DOUBLE_EQ(std::accumulate(r->weights.begin(), r->weights.end(), 0.0), c.documents);
    EXPECT_DOUBLE_EQ(r->values.back(), c.max);
    EXPECT_NEAR(Make(*r)->Mean(), c.mean, 1e-3);
  }
}

}  // namespace
}  // namespace dlsim::data
