#include "dlsim/studies/multitask/allocator.h"

#include <gtest/gtest.h>

#include <numeric>

#include "dlsim/core/rng.h"

namespace dlsim::multitask {
namespace {

Duration Ms(double ms) { return Millis(ms); }

// A job of `work` ms that speeds up by n^alpha, capped at `cap` devices (more leave devices idle).
MalleableJob Power(double work, double alpha, int cap, int budget) {
  MalleableJob j;
  for (int n = 1; n <= budget; ++n) j.time.push_back(Ms(work / std::pow(std::min(n, cap), alpha)));
  return j;
}

TEST(Allocator, SplitsPerfectlyScalingJobsByWork) {
  // 30 ms and 10 ms of perfectly parallel work on 4 devices: 3 + 1 devices, both 10 ms.
  auto a = AllocateMinMakespan({Power(30, 1, 99, 4), Power(10, 1, 99, 4)}, 4);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->devices, (std::vector<int>{3, 1}));
  EXPECT_EQ(a->makespan, Ms(10));
}

TEST(Allocator, LeftoverDevicesSpeedUpTheJobsThatAreNotCritical) {
  // Job 0 cannot use more than 2 devices (10 ms there); job 1 needs 1 device for 9 ms <= 10 ms, and
  // the 5 devices left go to it: 9 / 6 = 1.5 ms. The makespan stays 10 ms.
  auto a = AllocateMinMakespan({Power(20, 1, 2, 8), Power(9, 1, 99, 8)}, 8);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->makespan, Ms(10));
  EXPECT_EQ(a->devices, (std::vector<int>{2, 6}));
  EXPECT_EQ(a->time[1], Ms(1.5));
}

TEST(Allocator, NonMonotoneTablesUseTheBestOnFewerDevices) {
  MalleableJob j{{Ms(10), Ms(4), Ms(6), Ms(5)}};  // 3 and 4 devices are slower than 2
  auto a = AllocateMinMakespan({j}, 4);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->devices[0], 2);
  EXPECT_EQ(a->makespan, Ms(4));
}

TEST(Allocator, Errors) {
  EXPECT_EQ(AllocateMinMakespan({}, 4).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(AllocateMinMakespan({Power(1, 1, 1, 1)}, 0).error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(AllocateMinMakespan({Power(1, 1, 1, 2), Power(1, 1, 1, 2), Power(1, 1, 1, 2)}, 2).error().code,
            ErrorCode::kInfeasible);
  MalleableJob only_on_four{{Duration::Max(), Duration::Max(), Duration::Max(), Ms(1)}};
  EXPECT_EQ(AllocateMinMakespan({only_on_four, only_on_four}, 6).error().code, ErrorCode::kInfeasible);
  EXPECT_TRUE(AllocateMinMakespan({only_on_four}, 6).ok());
}

// The allocator's makespan equals the exhaustive optimum on random tiny instances: random tables
// (not monotone, some counts infeasible), 1-4 jobs, budgets up to 8.
TEST(Allocator, EqualsBruteForceOnTinyInstances) {
  Rng rng(7);
  int compared = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int budget = 1 + static_cast<int>(rng.NextBelow(8));
    const int k = 1 + static_cast<int>(rng.NextBelow(std::min(4, budget)));
    std::vector<MalleableJob> jobs(k);
    for (MalleableJob& j : jobs) {
      const int len = 1 + static_cast<int>(rng.NextBelow(budget));  // tables may stop short
      for (int n = 1; n <= len; ++n) {
        j.time.push_back(rng.NextBelow(6) == 0 ? Duration::Max()
                                               : Micros(1 + static_cast<double>(rng.NextBelow(1000))));
      }
    }
    auto fast = AllocateMinMakespan(jobs, budget);
    auto slow = BruteForceMakespan(jobs, budget);
    ASSERT_EQ(fast.ok(), slow.ok()) << "trial " << trial;
    if (!fast.ok()) continue;
    ++compared;
    EXPECT_EQ(fast->makespan, *slow) << "trial " << trial;
    EXPECT_LE(std::accumulate(fast->devices.begin(), fast->devices.end(), 0), budget);
    for (size_t i = 0; i < jobs.size(); ++i) {
      EXPECT_GE(fast->devices[i], 1);
      EXPECT_LE(fast->time[i], fast->makespan);
    }
  }
  EXPECT_GT(compared, 2000);
}

}  // namespace
}  // namespace dlsim::multitask
