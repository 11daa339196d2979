// MakeDefaultBackend for builds with MPI: MPI under mpirun, threads otherwise
// (a plain start never initialises MPI, so the binary runs where no MPI
// launcher is available).
#include "dlsim/core/mpi_work_map.h"
#include "dlsim/plan/backend.h"
#include "dlsim/plan/mpi_backend.h"

namespace dlsim::plan {

std::unique_ptr<Backend> MakeDefaultBackend(int threads) {
  return LaunchedByMpi() ? MakeMpiBackend(threads) : MakeThreadBackend(threads);
}

}  // namespace dlsim::plan
