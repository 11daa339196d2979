// Per-sample modality mixes (data/modality_mix.h): draws, batch grouping, file rows and the token-balanced
// micro-batch split.
#include "dlsim/data/modality_mix.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace dlsim::data {
namespace {

LengthSpec Fixed(double v) {
  LengthSpec l;
  l.distribution = "fixed";
  l.value = v;
  return l;
}

ModalityMixSpec TwoSources(BatchGrouping g) {
  ModalityMixSpec s;
  s.grouping = g;
  s.components.push_back(
      {.name = "caption", .weight = 1, .text_only_fraction = 0, .images = Fixed(1), .text = Fixed(100)});
  s.components.push_back(
      {.name = "text", .weight = 1, .text_only_fraction = 1, .images = {}, .text = Fixed(2000)});
  return s;
}

TEST(ModalityMixTest, PerSampleMixesComponentsAndIsDeterministic) {
  auto mix = MakeModalityMix(TwoSources(BatchGrouping::kPerSample));
  ASSERT_TRUE(mix.ok()) << mix.error().message;
  Rng a = Rng(7).Stream("data/modality"), b = Rng(7).Stream("data/modality");
  const auto x = mix->DrawBatch(a, 200), y = mix->DrawBatch(b, 200);
  EXPECT_EQ(x, y);
  const int with_images =
      static_cast<int>(std::count_if(x.begin(), x.end(), [](auto& s) { return s.images > 0; }));
  EXPECT_GT(with_images, 60);
  EXPECT_LT(with_images, 140);
  EXPECT_DOUBLE_EQ(mix->MeanImages(), 0.5);
  EXPECT_DOUBLE_EQ(mix->MeanTextTokens(), 1050);
}

TEST(ModalityMixTest, PerBatchGroupingDrawsOneSourcePerBatch) {
  auto mix = MakeModalityMix(TwoSources(BatchGrouping::kPerBatch));
  ASSERT_TRUE(mix.ok());
  Rng rng(3);
  std::set<int> kinds;
  for (int i = 0; i < 20; ++i) {
    const auto batch = mix->DrawBatch(rng, 16);
    std::set<int> images;
    for (const auto& s : batch) images.insert(s.images);
    EXPECT_EQ(images.size(), 1u);  // all from one source
    kinds.insert(*images.begin());
  }
  EXPECT_EQ(kinds.size(), 2u);  // both sources appear over the batches
}

TEST(ModalityMixTest, PackedBatchesFillTheTokenBudget) {
  auto mix = MakeModalityMix(TwoSources(BatchGrouping::kPerSample));
  ASSERT_TRUE(mix.ok());
  Rng rng(5);
  // Samples hold 100 + 256 (one image) or 2000 LLM tokens: drawn until 20,000 are reached.
  const auto batch = mix->DrawPacked(rng, 20000, 256);
  int64_t tokens = 0, last = 0;
  for (const auto& s : batch) tokens += last = s.text_tokens + s.images * 256;
  EXPECT_GE(tokens, 20000);
  EXPECT_LT(tokens - last, 20000);  // the last sample crossed the budget
  EXPECT_TRUE(mix->DrawPacked(rng, 0, 256).empty());
}

TEST(ModalityMixTest, SamplesFromAFile) {
  auto rows = ParseModalitySamples("# note\nimages,text_tokens,id\n2,300,a\n0,1500,b\n", "mix.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0], (model::MultimodalSample{2, 300}));
  ModalityMixSpec s;
  s.samples = *rows;
  auto mix = MakeModalityMix(s);
  ASSERT_TRUE(mix.ok());
  Rng rng(1);
  for (const auto& x : mix->DrawBatch(rng, 10)) EXPECT_TRUE(x == (*rows)[0] || x == (*rows)[1]);
  EXPECT_FALSE(ParseModalitySamples("images,text\n1,2\n", "bad.csv").ok());
  EXPECT_FALSE(ParseModalitySamples("images,text_tokens\n1.5,2\n", "bad.csv").ok());
  EXPECT_FALSE(ParseModalitySamples("images,text_tokens\n", "empty.csv").ok());
}

TEST(ModalityMixTest, BadSpecsNameTheComponent) {
  ModalityMixSpec s = TwoSources(BatchGrouping::kPerSample);
  s.components[0].text_only_fraction = 1.5;
  auto r = MakeModalityMix(s);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("caption"), std::string::npos);
  s = TwoSources(BatchGrouping::kPerSample);
  s.components[0].images.distribution = "nope";
  EXPECT_FALSE(MakeModalityMix(s).ok());
  EXPECT_FALSE(MakeModalityMix(ModalityMixSpec{}).ok());
}

TEST(ModalityMixTest, SplitBalancesLlmTokens) {
  // LLM tokens: 1000, 900, 600, 500, 300, 100 (image = 200 tokens) into 2 micro-batches.
  const std::vector<model::MultimodalSample> batch = {{0, 1000}, {2, 500}, {0, 600},
                                                      {1, 300},  {0, 300}, {0, 100}};
  const auto mbs = SplitMultimodalBatch(batch, 2, 200);
  ASSERT_EQ(mbs.size(), 2u);
  auto tokens = [](const std::vector<model::MultimodalSample>& mb) {
    int64_t t = 0;
    for (const auto& s : mb) t += s.text_tokens + s.images * 200;
    return t;
  };
  // LPT: 1000 -> 0, 900 -> 1, 600 -> 1, 500 -> 0, 300 -> 0 or 1 (1500 vs 1500: the lower), 100 -> 1.
  EXPECT_EQ(tokens(mbs[0]) + tokens(mbs[1]), 3400);
  EXPECT_LE(std::abs(tokens(mbs[0]) - tokens(mbs[1])), 200);
  EXPECT_EQ(mbs[0].front(), (model::MultimodalSample{0, 1000}));  // batch order kept inside a micro-batch
}

}  // namespace
}  // namespace dlsim::data
