// Multi-threaded back-end: workers take candidates in small blocks from a
// shared counter and write each result to its own slot, so the output order is
// the batch order.
#include <algorithm>
#include <atomic>
#include <thread>

#include "dlsim/plan/backend.h"

namespace dlsim::plan {
namespace {

constexpr size_t kBlock = 8;  // candidates taken at once (amortises the shared counter)

class ThreadBackend : public Backend {
 public:
  explicit ThreadBackend(int threads) : threads_(threads) {}

  std::vector<Evaluation> EvaluateAll(const std::vector<Candidate>& batch, const EvaluateFn& fn,
                                      const ProgressFn& progress) override {
    std::vector<Evaluation> out(batch.size());
    std::atomic<size_t> next{0}, done{0};
    auto work = [&](int worker) {
      for (;;) {
        const size_t begin = next.fetch_add(kBlock);
        if (begin >= batch.size()) return;
        const size_t end = std::min(batch.size(), begin + kBlock);
        for (size_t i = begin; i < end; ++i) out[i] = fn(batch[i], worker);
        const size_t d = done.fetch_add(end - begin) + (end - begin);
        if (progress) progress(d, batch.size());
      }
    };
    const int n = static_cast<int>(std::min<size_t>(threads_, std::max<size_t>(1, batch.size())));
    std::vector<std::thread> pool;
    for (int w = 1; w < n; ++w) pool.emplace_back(work, w);
    work(0);
    for (auto& t : pool) t.join();
    return out;
  }
  int Workers() const override { return threads_; }
  std::string Describe() const override {
    return std::to_string(threads_) + (threads_ == 1 ? " thread" : " threads");
  }

 private:
  int threads_;
};

}  // namespace

std::unique_ptr<Backend> MakeThreadBackend(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return std::make_unique<ThreadBackend>(threads);
}

}  // namespace dlsim::plan
