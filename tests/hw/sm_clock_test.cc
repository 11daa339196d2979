// hw::SmClockShare and hw::LockSmClock on hand-built parts: the share is the clock over the part's maximum
// (or its sustained full-load clock, where the catalog bounds one), a lock lowers every type's sustained peak
// to it (keeping a lower power-limited share), and a clock the part cannot run or a part without a maximum
// clock is an error that leaves the part unchanged.
#include "dlsim/hw/sm_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dlsim::hw {
namespace {

GpuSpec Part(double max_mhz) {
  GpuSpec g;
  g.name = "part";
  g.dense_peak[static_cast<int>(DType::kFp32)] = TFLOPS(67);
  g.dense_peak[static_cast<int>(DType::kBf16)] = TFLOPS(989.4);
  g.hbm_bandwidth = GBps(4800);
  g.max_sm_clock_mhz = max_mhz;
  return g;
}

TEST(SmClock, ShareIsTheClockOverTheMaximum) {
  EXPECT_DOUBLE_EQ(*SmClockShare(Part(1980), 1500), 1500.0 / 1980.0);
  EXPECT_DOUBLE_EQ(*SmClockShare(Part(1980), 1980), 1.0);
}

// A part whose catalog bounds the clock it holds under full load (sustained_sm_clock_mhz): the measured rates
// held at most that clock, so a lock is priced against it, and a lock at or above it changes nothing (the
// power limit pulls the clock down to it under load).
TEST(SmClock, ASustainedClockIsTheReference) {
  GpuSpec g = Part(1980);
  g.sustained_sm_clock_mhz = 1830;
  EXPECT_DOUBLE_EQ(*SmClockShare(g, 1500), 1500.0 / 1830.0);
  EXPECT_DOUBLE_EQ(*SmClockShare(g, 1830), 1.0);
  EXPECT_DOUBLE_EQ(*SmClockShare(g, 1980), 1.0);
  EXPECT_FALSE(SmClockShare(g, 1981).ok());  // the maximum still bounds a lock
  ASSERT_TRUE(LockSmClock(915, g).ok());
  EXPECT_NEAR(g.SustainedPeak(DType::kBf16).ToTFLOPS(), 989.4 / 2, 1e-9);
}

TEST(SmClock, LockScalesEveryArithmeticPeakAndNotTheMemory) {
  GpuSpec g = Part(1980);
  ASSERT_TRUE(LockSmClock(990, g).ok());
  EXPECT_NEAR(g.SustainedPeak(DType::kBf16).ToTFLOPS(), 989.4 / 2, 1e-9);
  EXPECT_NEAR(g.SustainedPeak(DType::kFp32).ToTFLOPS(), 67.0 / 2, 1e-9);
  EXPECT_NEAR(g.Peak(DType::kBf16).ToTFLOPS(), 989.4, 1e-9);  // MFU stays against the datasheet
  EXPECT_NEAR(g.hbm_bandwidth.ToGBps(), 4800, 1e-9);
}

TEST(SmClock, APowerLimitedShareBelowTheLockIsKept) {
  GpuSpec g = Part(1980);
  g.sustained_fraction[static_cast<int>(DType::kBf16)] = 0.744;
  ASSERT_TRUE(LockSmClock(1900, g).ok());  // share 0.96: the power limit binds
  EXPECT_DOUBLE_EQ(g.sustained_fraction[static_cast<int>(DType::kBf16)], 0.744);
  EXPECT_DOUBLE_EQ(g.sustained_fraction[static_cast<int>(DType::kFp32)], 1900.0 / 1980.0);
  ASSERT_TRUE(LockSmClock(990, g).ok());  // share 0.5: the lock binds
  EXPECT_DOUBLE_EQ(g.sustained_fraction[static_cast<int>(DType::kBf16)], 0.5);
}

TEST(SmClock, ClocksThePartCannotRunAreErrorsAndChangeNothing) {
  for (double mhz : {0.0, -5.0, 1981.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    GpuSpec g = Part(1980);
    const Status s = LockSmClock(mhz, g);
    ASSERT_FALSE(s.ok()) << mhz;
    EXPECT_NE(s.error().message.find("maximum SM clock of part"), std::string::npos) << s.error().message;
    for (double f : g.sustained_fraction) EXPECT_EQ(f, 0.0);
  }
}

TEST(SmClock, APartWithoutAMaximumClockCannotBeLocked) {
  GpuSpec g = Part(0);
  const Status s = LockSmClock(1500, g);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("no maximum SM clock for GPU 'part'"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace dlsim::hw
