// Where candidates are simulated: an interface with a multi-threaded
// implementation here and an MPI one in its own target (dlsim_plan_mpi,
// mpi_backend.h). The planner decides what to evaluate; a back-end only maps a
// function over a batch and returns the results in batch order on every
// process, so rankings do not depend on the number of threads or processes.
//
//   auto backend = plan::MakeThreadBackend(/*threads=*/0);   // 0: all cores
//   std::vector<Evaluation> r = backend->EvaluateAll(batch, fn,
//   /*progress=*/{});
#ifndef DLSIM_PLAN_BACKEND_H_
#define DLSIM_PLAN_BACKEND_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/progress.h"
#include "dlsim/plan/candidate.h"
#include "dlsim/plan/evaluation.h"

namespace dlsim::plan {

// Simulates one candidate on worker `worker` (0 <= worker < Workers()). Called
// concurrently from different workers; never twice at once with the same
// worker.
using EvaluateFn = std::function<Evaluation(const Candidate& candidate, int worker)>;
// Reports `done` evaluations finished by this process so far in the batch of
// `total`. Called from worker threads, possibly concurrently: the callee
// synchronises (core/progress.h).
using ProgressFn = dlsim::ProgressFn;

class Backend {
 public:
  virtual ~Backend() = default;
  // Evaluates every candidate; result i belongs to batch[i]. Every process gets
  // all results.
  virtual std::vector<Evaluation> EvaluateAll(const std::vector<Candidate>& batch, const EvaluateFn& fn,
                                              const ProgressFn& progress) = 0;
  // Worker slots of this process (the EvaluateFn's `worker` range).
  virtual int Workers() const = 0;
  // True on the one process that prints (always true without MPI).
  virtual bool IsPrimary() const { return true; }
  // "2 threads", "4 MPI ranks x 2 threads".
  virtual std::string Describe() const = 0;
};

// Threads on this machine; `threads` <= 0 means
// std::thread::hardware_concurrency().
std::unique_ptr<Backend> MakeThreadBackend(int threads);

// The back-end this build links: MPI when it was built with MPI and the process
// was started by mpirun, threads otherwise (src/plan/default_backend_*.cc,
// chosen by CMake).
std::unique_ptr<Backend> MakeDefaultBackend(int threads);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_BACKEND_H_
