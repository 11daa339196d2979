// LogHistogram against the exact nearest-rank percentiles of the same values (brute force): within 1%,
// never below; mean and max exact; zeros and non-finite values count as the lowest bucket.
#include "dlsim/core/log_histogram.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "dlsim/core/rng.h"
#include "dlsim/core/stats.h"

namespace dlsim {
namespace {

TEST(LogHistogram, PercentilesWithinOnePercentOfTheExactOnes) {
  Rng rng(5);
  LogHistogram h;
  std::vector<double> v;
  for (int i = 0; i < 20000; ++i) {
    const double x = std::exp(SampleNormal(rng, -4, 1.5));  // lognormal around 18 ms
    v.push_back(x);
    h.Add(x);
  }
  const Percentiles exact = Summarize(v);
  const Percentiles p = h.Summary();
  for (auto [got, want] : {std::pair{p.p50, exact.p50}, {p.p90, exact.p90}, {p.p99, exact.p99}}) {
    EXPECT_GE(got, want * (1 - 1e-12));
    EXPECT_LE(got, want * 1.0101);
  }
  EXPECT_NEAR(p.mean, exact.mean, 1e-12 * exact.mean);
  EXPECT_EQ(p.max, exact.max);
  EXPECT_EQ(h.count(), 20000);
}

TEST(LogHistogram, EmptyAndDegenerateValues) {
  LogHistogram h;
  EXPECT_EQ(h.Summary().p99, 0);
  h.Add(0);
  h.Add(-1);
  h.Add(std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(h.count(), 3);
  EXPECT_LE(h.Summary().p99, 1.02e-9);
  LogHistogram one;
  one.Add(0.25);
  EXPECT_EQ(one.Summary().p50, 0.25);  // capped at the exact maximum
}

}  // namespace
}  // namespace dlsim
