#include "dlsim/plan/mpi_backend.h"

#include <mpi.h>

#include "dlsim/core/mpi_work_map.h"

namespace dlsim::plan {
namespace {

// The planner's batch on core's MPI work map: each candidate's evaluation travels as its bytes
// (EncodeEvaluation), so every rank gets every evaluation in batch order.
class MpiBackend : public Backend {
 public:
  explicit MpiBackend(int threads_per_rank) : map_(MakeMpiWorkMap(threads_per_rank)) {}

  std::vector<Evaluation> EvaluateAll(const std::vector<Candidate>& batch, const EvaluateFn& fn,
                                      const ProgressFn& progress) override {
    const std::vector<std::string> bytes = map_->MapAll(
        batch.size(),
        [&](size_t i, int worker) {
          std::string b;
          EncodeEvaluation(fn(batch[i], worker), &b);
          return b;
        },
        progress);
    std::vector<Evaluation> out(batch.size());
    for (size_t i = 0; i < batch.size(); ++i) {
      auto e = DecodeEvaluations(bytes[i]);
      if (!e.ok() || e->size() != 1) MPI_Abort(MPI_COMM_WORLD, 3);  // a corrupted transfer: a bug
      out[i] = std::move(e->front());
    }
    return out;
  }
  int Workers() const override { return map_->Workers(); }
  bool IsPrimary() const override { return map_->IsPrimary(); }
  std::string Describe() const override { return map_->Describe(); }

 private:
  std::unique_ptr<WorkMap> map_;
};

}  // namespace

std::unique_ptr<Backend> MakeMpiBackend(int threads_per_rank) {
  return std::make_unique<MpiBackend>(threads_per_rank);
}

}  // namespace dlsim::plan
