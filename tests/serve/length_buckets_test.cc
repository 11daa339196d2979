// ElasticBatch's length buckets (serve/mig/length_buckets.h): quantile cuts, rounding, the cap, the
// shares, and bad arguments.
#include "dlsim/serve/mig/length_buckets.h"

#include <gtest/gtest.h>

#include <numeric>

namespace dlsim::serve {
namespace {

TEST(LengthBuckets, QuartilesOfOneToHundredRoundedToEightAndCapped) {
  std::vector<int64_t> lengths(100);
  std::iota(lengths.rbegin(), lengths.rend(), 1);  // 100, 99, ..., 1: any order
  auto b = QuantileBuckets(lengths, 4, /*max_len=*/100, /*round_to=*/8);
  ASSERT_TRUE(b.ok()) << b.error().message;
  ASSERT_EQ(b->size(), 4u);
  EXPECT_EQ((*b)[0].upper, 32);   // 25 -> 32
  EXPECT_EQ((*b)[1].upper, 56);   // 50 -> 56
  EXPECT_EQ((*b)[2].upper, 80);   // 75
  EXPECT_EQ((*b)[3].upper, 100);  // 100 -> 104, capped at max_len
  for (const LengthBucket& x : *b) EXPECT_DOUBLE_EQ(x.share, 0.25);
}

TEST(LengthBuckets, UnevenCountsGiveTheRemainderToTheLastBucket) {
  auto b = QuantileBuckets({5, 1, 9, 3, 7}, 2, 512, 1);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].upper, 3);  // {1, 3}
  EXPECT_DOUBLE_EQ((*b)[0].share, 0.4);
  EXPECT_EQ((*b)[1].upper, 9);  // {5, 7, 9}
  EXPECT_DOUBLE_EQ((*b)[1].share, 0.6);
}

TEST(LengthBuckets, BadArgumentsAreErrors) {
  EXPECT_FALSE(QuantileBuckets({}, 1, 512, 8).ok());
  EXPECT_FALSE(QuantileBuckets({1, 2}, 3, 512, 8).ok());
  EXPECT_FALSE(QuantileBuckets({1, 2}, 0, 512, 8).ok());
  EXPECT_FALSE(QuantileBuckets({1, 2}, 1, 0, 8).ok());
  EXPECT_FALSE(QuantileBuckets({1, 2}, 1, 512, 0).ok());
}

}  // namespace
}  // namespace dlsim::serve
