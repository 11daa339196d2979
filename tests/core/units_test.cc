#include "dlsim/core/units.h"

#include <gtest/gtest.h>

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

TEST(UnitsTest, RateTimesDuration) {
  Bytes b = GBps(10) * Seconds(2);
  EXPECT_DOUBLE_EQ(b.ToGB(), 20.0);
  BytesPerSecond bw = GB(10) / Seconds(4);
  EXPECT_DOUBLE_EQ(bw.ToGBps(), 2.5);
}

}  // namespace
}  // namespace dlsim
