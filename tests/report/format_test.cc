#include "dlsim/report/format.h"

#include <gtest/gtest.h>

#include <limits>

namespace dlsim::report {
namespace {

TEST(FormatDurationTest, PicksUnitByMagnitude) {
  struct Case {
    int64_t ns;
    const char* text;
  };
  const Case cases[] = {
      {0, "0 ns"},
      {999, "999 ns"},
      {1000, "1.000 µs"},
      {1234, "1.234 µs"},
      {999'999, "999.999 µs"},
      {999'500'000, "999.500 ms"},  // not "1.000 s": only a value printing as 1000.000 moves up
      {999'999'500, "1.000 s"},
      {9'999'400, "9.999 ms"},
      {9'999'600, "10.000 ms"},
      {999'999'999, "1.000 s"},  // would be "1000.000 ms": promoted
      {1'234'000'000, "1.234 s"},
      {59'999'000'000, "59.999 s"},
      {59'999'999'999, "1.000 min"},
      {90'000'000'000, "1.500 min"},
      {3'600'000'000'000, "1.000 h"},
      {-1500, "-1.500 µs"},
      {-999, "-999 ns"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatDuration(Nanos(c.ns)), c.text) << c.ns;
}

TEST(FormatBytesTest, BinaryUnits) {
  struct Case {
    double bytes;
    const char* text;
  };
  const Case cases[] = {
      {0, "0 B"},
      {1023, "1023 B"},
      {1024, "1.00 KiB"},
      {1536, "1.50 KiB"},
      {1024.0 * 1024 - 1, "1.00 MiB"},
      {GiB(80).ToBytes(), "80.00 GiB"},
      {GiB(1.5).ToBytes() * 1024, "1.50 TiB"},
      {-2048, "-2.00 KiB"},
  };
  for (const Case& c : cases) EXPECT_EQ(FormatBytes(ByteCount(c.bytes)), c.text) << c.bytes;
}

TEST(FormatRateTest, FlopsBandwidthAndCounts) {
  EXPECT_EQ(FormatRate(TFLOPS(989)), "989.00 TFLOP/s");
  EXPECT_EQ(FormatRate(TFLOPS(1000)), "1.00 PFLOP/s");
  EXPECT_EQ(FormatRate(TFLOPS(0.5)), "500.00 GFLOP/s");
  EXPECT_EQ(FormatRate(FlopsPerSecond(12)), "12.00 FLOP/s");
  EXPECT_EQ(FormatRate(GBps(450)), "450.00 GB/s");
  EXPECT_EQ(FormatRate(GBps(3350)), "3.35 TB/s");
  EXPECT_EQ(FormatRate(Gbps(400)), "50.00 GB/s");
  EXPECT_EQ(FormatRate(BytesPerSecond(999)), "999.00 B/s");
  EXPECT_EQ(FormatRate(999.0, "tokens/s"), "999.00 tokens/s");
  EXPECT_EQ(FormatRate(999.996, "tokens/s"), "1.00k tokens/s");
  EXPECT_EQ(FormatRate(12345.0, "tokens/s"), "12.35k tokens/s");
  EXPECT_EQ(FormatRate(2.5e6, "tokens/s"), "2.50M tokens/s");
  EXPECT_EQ(FormatRate(0.0, "req/s"), "0.00 req/s");
}

TEST(FormatPercentTest, Decimals) {
  EXPECT_EQ(FormatPercent(0.4567), "45.7%");
  EXPECT_EQ(FormatPercent(1.0), "100.0%");
  EXPECT_EQ(FormatPercent(0.0), "0.0%");
  EXPECT_EQ(FormatPercent(0.123456, 2), "12.35%");
  EXPECT_EQ(FormatPercent(0.5, 0), "50%");
}

TEST(FormatCountTest, ThousandsSeparators) {
  struct Case {
    int64_t n;
    const char* text;
  };
  const Case cases[] = {{0, "0"},
                        {999, "999"},
                        {1000, "1,000"},
                        {123456, "123,456"},
                        {1234567, "1,234,567"},
                        {-1234, "-1,234"},
                        {std::numeric_limits<int64_t>::min(), "-9,223,372,036,854,775,808"}};
  for (const Case& c : cases) EXPECT_EQ(FormatCount(c.n), c.text);
}

TEST(FormatLockedClockTest, NamesALockedClockOnly) {
  EXPECT_EQ(FormatLockedClock(1500.0), " at a locked 1500 MHz SM clock");
  EXPECT_EQ(FormatLockedClock(1665.5), " at a locked 1665.5 MHz SM clock");
  EXPECT_EQ(FormatLockedClock(std::nullopt), "");
}

}  // namespace
}  // namespace dlsim::report
