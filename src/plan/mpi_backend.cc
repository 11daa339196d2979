#include "dlsim/plan/mpi_backend.h"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <thread>

namespace dlsim::plan {
namespace {

int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::max(1, std::atoi(v)) : def;
}

class MpiBackend : public Backend {
 public:
  explicit MpiBackend(int threads_per_rank) {
    int initialized = 0;
    MPI_Initialized(&initialized);
    if (!initialized) {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
      owns_mpi_ = true;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (threads_per_rank <= 0) {
      const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      threads_per_rank = std::max(1, cores / EnvInt("OMPI_COMM_WORLD_LOCAL_SIZE", 1));
    }
    local_ = MakeThreadBackend(threads_per_rank);
  }
  ~MpiBackend() override {
    if (owns_mpi_) MPI_Finalize();
  }

  std::vector<Evaluation> EvaluateAll(const std::vector<Candidate>& batch, const EvaluateFn& fn,
                                      const ProgressFn& progress) override {
    std::vector<Candidate> mine;
    for (size_t i = rank_; i < batch.size(); i += size_) mine.push_back(batch[i]);
    ProgressFn p;  // this rank's share, scaled to the whole batch
    if (progress) p = [&](size_t d, size_t) { progress(std::min(batch.size(), d * size_), batch.size()); };
    std::string bytes;
    for (const Evaluation& e : local_->EvaluateAll(mine, fn, p)) EncodeEvaluation(e, &bytes);

    std::vector<int> sizes(size_), offsets(size_);
    int my_size = static_cast<int>(bytes.size());
    MPI_Allgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[r] = total;
      total += sizes[r];
    }
    std::string all(total, '\0');
    MPI_Allgatherv(bytes.data(), my_size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
    std::vector<Evaluation> out(batch.size());
    for (int r = 0; r < size_; ++r) {
      auto part = DecodeEvaluations(std::string_view(all).substr(offsets[r], sizes[r]));
      if (!part.ok()) MPI_Abort(MPI_COMM_WORLD,
                                3);  // corrupted transfer: a bug, not user input
      for (size_t j = 0; j < part->size(); ++j) out[r + j * size_] = std::move((*part)[j]);
    }
    return out;
  }
  int Workers() const override { return local_->Workers(); }
  bool IsPrimary() const override { return rank_ == 0; }
  std::string Describe() const override {
    return std::to_string(size_) + " MPI ranks x " + local_->Describe();
  }

 private:
  bool owns_mpi_ = false;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<Backend> local_;
};

}  // namespace

bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

std::unique_ptr<Backend> MakeMpiBackend(int threads_per_rank) {
  return std::make_unique<MpiBackend>(threads_per_rank);
}

}  // namespace dlsim::plan
