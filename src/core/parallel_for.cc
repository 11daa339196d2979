#include "dlsim/core/parallel_for.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "dlsim/core/cancel.h"

namespace dlsim {

void ParallelFor(size_t n, int threads, size_t block, const std::function<void(size_t i, int worker)>& fn,
                 const ProgressFn& progress) {
  std::atomic<size_t> next{0}, done{0};
  auto work = [&](int worker) {
    for (;;) {
      if (CancelRequested()) return;  // the caller sees the request and returns CancelledError()
      const size_t begin = next.fetch_add(block);
      if (begin >= n) return;
      const size_t end = std::min(n, begin + block);
      for (size_t i = begin; i < end; ++i) fn(i, worker);
      const size_t d = done.fetch_add(end - begin) + (end - begin);
      if (progress) progress(d, n);
    }
  };
  const int count = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), std::max<size_t>(1, n)));
  std::vector<std::thread> pool;
  for (int w = 1; w < count; ++w) pool.emplace_back(work, w);
  work(0);
  for (std::thread& t : pool) t.join();
}

void ParallelFor(size_t n, int threads, const std::function<void(size_t i)>& body) {
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ParallelFor(n, threads > 0 ? threads : hw, 1, [&body](size_t i, int) { body(i); }, {});
}

}  // namespace dlsim
