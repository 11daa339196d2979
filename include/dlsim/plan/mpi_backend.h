// MPI back-end of the planner (target dlsim_plan_mpi; only built when MPI is
// found).
//
// `mpirun -n N dlsim plan FILE`: every rank enumerates the same candidates
// (enumeration is deterministic), simulates those whose batch position i has i
// % N == rank on its own threads, and all ranks exchange the results
// (MPI_Allgatherv), so every rank holds the full, ordered result and the
// ranking equals a single-process run. Rank 0 is the primary (prints). The
// exchange is core's MPI work map (core/mpi_work_map.h), shared with the
// cluster sweep; LaunchedByMpi() is there too.
#ifndef DLSIM_PLAN_MPI_BACKEND_H_
#define DLSIM_PLAN_MPI_BACKEND_H_

#include <memory>

#include "dlsim/plan/backend.h"

namespace dlsim::plan {

// Initialises MPI (MPI_Init_thread, funneled) unless it already is, and
// finalises it on destruction if it initialised it. `threads_per_rank` <= 0:
// the cores divided by the ranks on this node. Not thread-safe: one back-end
// per process.
std::unique_ptr<Backend> MakeMpiBackend(int threads_per_rank);

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_MPI_BACKEND_H_
