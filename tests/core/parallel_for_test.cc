// ParallelFor: every item runs exactly once, for any thread count (including more than items).
#include "dlsim/core/parallel_for.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace dlsim {
namespace {

TEST(ParallelForTest, EveryItemRunsExactlyOnce) {
  for (int threads : {0, 1, 3, 64}) {
    std::vector<std::atomic<int>> hits(50);
    ParallelFor(hits.size(), threads, [&](size_t i) { ++hits[i]; });
    for (const auto& h : hits) EXPECT_EQ(h.load(), 1) << threads << " threads";
  }
  ParallelFor(0, 4, [](size_t) { FAIL() << "no items"; });
}

}  // namespace
}  // namespace dlsim
