#include "dlsim/core/units.h"

#include <gtest/gtest.h>

#include <limits>

namespace dlsim {
namespace {

TEST(UnitsTest, BytesOverBandwidthIsDuration) {
  Duration t = GB(100) / GBps(50);
  EXPECT_EQ(t.ToNanos(), 2'000'000'000);
}

TEST(UnitsTest, FlopsOverRateIsDuration) {
  Duration t = Flops(989e12) / TFLOPS(989);
  EXPECT_DOUBLE_EQ(t.ToSeconds(), 1.0);
}

TEST(UnitsTest, BinaryPrefixes) {
  EXPECT_DOUBLE_EQ(GiB(1).ToBytes(), 1073741824.0);
  EXPECT_DOUBLE_EQ(GiB(80).ToGiB(), 80.0);
  EXPECT_DOUBLE_EQ(Gbps(400).ToGBps(), 50.0);
}

TEST(UnitsTest, DurationRoundsToNanos) {
  EXPECT_EQ(Seconds(1.4e-9).ToNanos(), 1);
  EXPECT_EQ(Seconds(1.6e-9).ToNanos(), 2);
  EXPECT_EQ(Micros(3).ToNanos(), 3000);
}

TEST(UnitsTest, TimePointArithmetic) {
  TimePoint t = TimePoint::Start() + Millis(2);
  EXPECT_EQ((t - TimePoint::Start()).ToNanos(), 2'000'000);
  EXPECT_LT(TimePoint::Start(), t);
}

// Overflow saturates and is recognisable; it never wraps to a negative or small time.
TEST(UnitsTest, DurationSaturatesInsteadOfWrapping) {
  EXPECT_EQ(Seconds(1e20), Duration::Max());
  EXPECT_EQ(Seconds(-1e20), Duration::Min());
  EXPECT_EQ(Seconds(std::numeric_limits<double>::quiet_NaN()), Duration::Max());
  EXPECT_EQ(Seconds(std::numeric_limits<double>::infinity()), Duration::Max());
  EXPECT_EQ(Duration::Max() + Seconds(1), Duration::Max());
  EXPECT_EQ(Duration::Min() - Seconds(1), Duration::Min());
  EXPECT_EQ(Duration::Max() * int64_t{3}, Duration::Max());
  EXPECT_EQ(Seconds(-2) * int64_t{int64_t{1} << 40}, Duration::Min());
  EXPECT_TRUE((Duration::Max() - Seconds(3600)).IsSaturated());
  EXPECT_FALSE(Seconds(3.0e9).IsSaturated());  // 95 years is a (silly) time, not an overflow
  EXPECT_EQ((Bytes(1e9) / BytesPerSecond(1e-300)), Duration::Max());
  EXPECT_EQ(Seconds(1.5) + Seconds(2.5), Seconds(4));
}

TEST(UnitsTest, RateTimesDuration) {
  Bytes b = GBps(10) * Seconds(2);
  EXPECT_DOUBLE_EQ(b.ToGB(), 20.0);
  BytesPerSecond bw = GB(10) / Seconds(4);
  EXPECT_DOUBLE_EQ(bw.ToGBps(), 2.5);
}

}  // namespace
}  // namespace dlsim
