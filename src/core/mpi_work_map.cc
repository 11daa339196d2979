#include "dlsim/core/mpi_work_map.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

namespace dlsim {
namespace {

int EnvInt(const char* name, int def) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::max(1, std::atoi(v)) : def;
}

// Results as one byte string: each a 64-bit length, then its bytes.
std::string Pack(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    const uint64_t size = p.size();
    out.append(reinterpret_cast<const char*>(&size), sizeof size);
    out += p;
  }
  return out;
}

std::vector<std::string> Unpack(std::string_view bytes) {
  std::vector<std::string> out;
  while (bytes.size() >= sizeof(uint64_t)) {
    uint64_t size = 0;
    std::memcpy(&size, bytes.data(), sizeof size);
    bytes.remove_prefix(sizeof size);
    if (size > bytes.size()) MPI_Abort(MPI_COMM_WORLD, 3);  // a corrupted transfer: a bug
    out.emplace_back(bytes.substr(0, size));
    bytes.remove_prefix(size);
  }
  return out;
}

class MpiWorkMap final : public WorkMap {
 public:
  explicit MpiWorkMap(int threads_per_rank) {
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
    local_ = MakeThreadWorkMap(threads_per_rank);
  }
  ~MpiWorkMap() override {
    if (owns_mpi_) MPI_Finalize();
  }

  std::vector<std::string> MapAll(size_t n, const ItemFn& fn, const ProgressFn& progress) override {
    const size_t ranks = static_cast<size_t>(size_), rank = static_cast<size_t>(rank_);
    const size_t mine = n > rank ? (n - rank + ranks - 1) / ranks : 0;
    ProgressFn p;  // this rank's share, scaled to the whole batch
    if (progress) p = [&](size_t d, size_t) { progress(std::min(n, d * ranks), n); };
    const std::string bytes = Pack(local_->MapAll(
        mine, [&](size_t k, int worker) { return fn(rank + k * ranks, worker); }, p));
    std::vector<int> sizes(size_), offsets(size_);
    int my_size = static_cast<int>(bytes.size());
    MPI_Allgather(&my_size, 1, MPI_INT, sizes.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size_; ++r) offsets[r] = total, total += sizes[r];
    std::string all(total, '\0');
    MPI_Allgatherv(bytes.data(), my_size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE,
                   MPI_COMM_WORLD);
    std::vector<std::string> out(n);
    for (size_t r = 0; r < ranks; ++r) {
      std::vector<std::string> part = Unpack(std::string_view(all).substr(offsets[r], sizes[r]));
      for (size_t k = 0; k < part.size(); ++k) out[r + k * ranks] = std::move(part[k]);
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
  std::unique_ptr<WorkMap> local_;
};

}  // namespace

bool LaunchedByMpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

std::unique_ptr<WorkMap> MakeMpiWorkMap(int threads_per_rank) {
  return std::make_unique<MpiWorkMap>(threads_per_rank);
}

std::unique_ptr<WorkMap> MakeDefaultWorkMap(int threads) {
  return LaunchedByMpi() ? MakeMpiWorkMap(threads) : MakeThreadWorkMap(threads);
}

}  // namespace dlsim
