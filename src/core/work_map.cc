#include "dlsim/core/work_map.h"

#include <algorithm>
#include <thread>

#include "dlsim/core/parallel_for.h"

namespace dlsim {
namespace {

class ThreadWorkMap final : public WorkMap {
 public:
  explicit ThreadWorkMap(int threads)
      : threads_(threads > 0 ? threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))) {}

  std::vector<std::string> MapAll(size_t n, const ItemFn& fn, const ProgressFn& progress) override {
    std::vector<std::string> out(n);
    ParallelFor(
        n, threads_, /*block=*/1, [&](size_t i, int worker) { out[i] = fn(i, worker); }, progress);
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

std::unique_ptr<WorkMap> MakeThreadWorkMap(int threads) { return std::make_unique<ThreadWorkMap>(threads); }

}  // namespace dlsim
