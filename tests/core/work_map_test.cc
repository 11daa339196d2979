// ParallelFor and the thread WorkMap: every index exactly once, results in index order whatever the
// thread count, worker slots in range, progress up to the total.
#include "dlsim/core/work_map.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "dlsim/core/parallel_for.h"

namespace dlsim {
namespace {

TEST(ParallelFor, EveryIndexOnceOnAValidWorker) {
  for (int threads : {1, 3, 8})
    for (size_t block : {size_t{1}, size_t{8}}) {
      std::vector<std::atomic<int>> hits(1000);
      std::atomic<int> bad_worker{0};
      std::atomic<size_t> last_done{0};
      ParallelFor(
          hits.size(), threads, block,
          [&](size_t i, int worker) {
            ++hits[i];
            if (worker < 0 || worker >= threads) ++bad_worker;
          },
          [&](size_t done, size_t total) {
            EXPECT_EQ(total, hits.size());
            size_t prev = last_done.load();
            while (done > prev && !last_done.compare_exchange_weak(prev, done)) {
            }
          });
      for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
      EXPECT_EQ(bad_worker.load(), 0);
      EXPECT_EQ(last_done.load(), hits.size());
    }
}

TEST(ThreadWorkMap, ResultsInItemOrderWhateverTheThreadCount) {
  std::vector<std::string> one;
  for (int threads : {1, 2, 5}) {
    std::unique_ptr<WorkMap> map = MakeThreadWorkMap(threads);
    EXPECT_EQ(map->Workers(), threads);
    EXPECT_TRUE(map->IsPrimary());
    std::vector<std::string> out =
        map->MapAll(37, [](size_t i, int) { return std::string(i % 5, 'x') + std::to_string(i * i); }, {});
    ASSERT_EQ(out.size(), 37u);
    if (one.empty()) one = out;
    EXPECT_EQ(out, one);
  }
  EXPECT_EQ(one[6], "x36");
  EXPECT_EQ(MakeThreadWorkMap(1)->Describe(), "1 thread");
  EXPECT_TRUE(MakeThreadWorkMap(3)->MapAll(0, [](size_t, int) { return std::string("never"); }, {}).empty());
}

}  // namespace
}  // namespace dlsim
