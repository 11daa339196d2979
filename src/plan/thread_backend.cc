// Multi-threaded back-end: workers take candidates in small blocks from a
// shared counter and write each result to its own slot, so the output order is
// the batch order.
#include "dlsim/core/parallel_for.h"
#include "dlsim/core/work_map.h"
#include "dlsim/plan/backend.h"

namespace dlsim::plan {
namespace {

constexpr size_t kBlock = 8;  // candidates taken at once (amortises the shared counter)

// Evaluations stay in memory (no encoding): the work map's threads, described as it describes them.
class ThreadBackend : public Backend {
 public:
  explicit ThreadBackend(int threads) : map_(MakeThreadWorkMap(threads)) {}

  std::vector<Evaluation> EvaluateAll(const std::vector<Candidate>& batch, const EvaluateFn& fn,
                                      const ProgressFn& progress) override {
    std::vector<Evaluation> out(batch.size());
    ParallelFor(
        batch.size(), map_->Workers(), kBlock, [&](size_t i, int worker) { out[i] = fn(batch[i], worker); },
        progress);
    return out;
  }
  int Workers() const override { return map_->Workers(); }
  std::string Describe() const override { return map_->Describe(); }

 private:
  std::unique_ptr<WorkMap> map_;  // for its thread count and description
};

}  // namespace

std::unique_ptr<Backend> MakeThreadBackend(int threads) { return std::make_unique<ThreadBackend>(threads); }

}  // namespace dlsim::plan
