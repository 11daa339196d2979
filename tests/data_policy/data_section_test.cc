#include "dlsim/io/data_section.h"

#include <gtest/gtest.h>

namespace dlsim::io {
namespace {

Result<data::DataOptions> Parse(const std::string& yaml, const std::string& base = DLSIM_DATA_DIR) {
  return ParseDataSection(yaml, "s.yaml", base);
}

void ExpectError(const std::string& yaml, const std::string& needle) {
  auto r = Parse(yaml);
  ASSERT_FALSE(r.ok()) << yaml;
  EXPECT_NE(r.error().message.find(needle), std::string::npos) << r.error().message;
}

TEST(DataSection, Distribution) {
  auto r = Parse(R"(
data:
  lengths: {distribution: lognormal, median: 1500, sigma: 1.6}
  max_len: 32768
  policy: padding_free
  seed: 7
  steps: 20
  chunk_size: 4096
  token_budget: 65536
  pad_to: max_len
  documents: 256
)");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->lengths.distribution, "lognormal");
  EXPECT_DOUBLE_EQ(r->lengths.median, 1500);
  EXPECT_DOUBLE_EQ(r->lengths.sigma, 1.6);
  EXPECT_EQ(r->lengths.max_len, 32768);
  EXPECT_EQ(r->policy, "padding_free");
  EXPECT_EQ(r->seed, 7u);
  EXPECT_EQ(r->steps, 20);
  EXPECT_EQ(r->chunk_size, 4096);
  EXPECT_EQ(r->token_budget, 65536);
  EXPECT_EQ(r->pad_to, data::PadTo::kMaxLen);
  EXPECT_EQ(r->documents, 256);
}

TEST(DataSection, PadToIsOneOfTwoNames) {
  auto r = Parse("data:\n  lengths: {distribution: fixed, value: 10}\n  policy: pad\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->pad_to, data::PadTo::kLongest);
  ExpectError("data:\n  lengths: {distribution: fixed, value: 10}\n  pad_to: max\n", "max_len");
  ExpectError("data:\n  lengths: {distribution: fixed, value: 10}\n  documents: -1\n", "documents");
}

TEST(DataSection, FileRelativeToTheScenarioFolder) {
  auto r = Parse("data:\n  lengths: {file: lengths/distca_prolong_hist.json}\n  policy: distca\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->lengths.distribution, "empirical");
  EXPECT_DOUBLE_EQ(r->lengths.values.back(), 340149);
  EXPECT_NE(r->lengths.file.find("distca_prolong_hist.json"), std::string::npos);
  EXPECT_EQ(r->steps, 1);
  EXPECT_EQ(r->lengths.max_len, 0);
}

TEST(DataSection, Errors) {
  ExpectError("data:\n  lengths: {file: nope.json}\n", "s.yaml:2:");
  ExpectError("data:\n  lengths: {file: nope.json}\n", "nope.json");
  ExpectError("data:\n  lengths: {distribution: lognormal, median: 10, sigma: 1, value: 3}\n",
              "unknown key 'value'");
  ExpectError("data:\n  lengths: {distribution: lognormall, median: 10, sigma: 1}\n",
              "did you mean 'lognormal'");
  ExpectError("data:\n  lengths: {distribution: lognormal, sigma: 1}\n", "median");
  ExpectError("data:\n  lengths: {distribution: uniform, low: 10, high: 5}\n", "high");
  ExpectError("data:\n  lengths: {file: a.json, distribution: fixed}\n", "not both");
  ExpectError("data:\n  lengths: {median: 3}\n", "expected 'file' or 'distribution'");
  ExpectError("data:\n  policy: pading_free\n", "missing required key 'lengths'");
  ExpectError("data:\n  lengths: {distribution: fixed, value: 5}\n  policy: pading_free\n",
              "did you mean 'padding_free'");
  ExpectError("data:\n  lengths: {distribution: fixed, value: 5}\n  steps: 0\n", "data.steps");
  ExpectError("data:\n  lengths: {distribution: fixed, value: 5}\n  max_len: -1\n", "data.max_len");
  ExpectError("data:\n  lengths: {distribution: fixed, value: 5}\n  chunk: 3\n", "unknown key 'chunk'");
}

TEST(DataSection, AbsentSectionGivesDefaults) {
  auto r = Parse("model: {name: x}\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->policy, "pack");
  EXPECT_TRUE(r->lengths.distribution.empty());
}

}  // namespace
}  // namespace dlsim::io
