// Maps a function over the items of a batch, on this process's threads or across MPI ranks, and
// returns every item's result in item order on every process, so whatever is computed from the
// results does not depend on the thread or rank count. Results are bytes: the caller encodes them
// (an MPI rank sends them to the others). The cluster sweep (cluster/sweep.h) runs on it; the MPI
// implementation is a separate target (dlsim_core_mpi, core/mpi_work_map.h).
//
//   std::unique_ptr<WorkMap> map = MakeThreadWorkMap(/*threads=*/0);  // 0: all cores
//   std::vector<std::string> out = map->MapAll(10, [](size_t i, int) { return std::to_string(i * i); }, {});
#ifndef DLSIM_CORE_WORK_MAP_H_
#define DLSIM_CORE_WORK_MAP_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/progress.h"

namespace dlsim {

class WorkMap {
 public:
  // Computes item `index` (0 <= index < n) on worker slot `worker` (0 <= worker < Workers(), for
  // per-worker scratch state). Called concurrently from different workers, never twice at once
  // with the same worker; once per item over all processes.
  using ItemFn = std::function<std::string(size_t index, int worker)>;
  virtual ~WorkMap() = default;
  // Every item's result; out[i] belongs to item i, on every process. `progress` (may be empty)
  // hears of the items this process finished, scaled to the whole batch, from worker threads.
  virtual std::vector<std::string> MapAll(size_t n, const ItemFn& fn, const ProgressFn& progress) = 0;
  // Worker slots of this process.
  virtual int Workers() const = 0;
  // True on the one process that prints (always without MPI).
  virtual bool IsPrimary() const { return true; }
  // "2 threads", "2 MPI ranks x 1 thread".
  virtual std::string Describe() const = 0;
};

// Threads of this process; `threads` <= 0: std::thread::hardware_concurrency(). No more threads
// than items are started. Thread-safe for distinct calls only.
std::unique_ptr<WorkMap> MakeThreadWorkMap(int threads);

}  // namespace dlsim

#endif  // DLSIM_CORE_WORK_MAP_H_
