// core/mpi_work_map.h for builds without MPI: threads only.
#include "dlsim/core/mpi_work_map.h"

namespace dlsim {

bool LaunchedByMpi() { return false; }

std::unique_ptr<WorkMap> MakeMpiWorkMap(int threads_per_rank) { return MakeThreadWorkMap(threads_per_rank); }

std::unique_ptr<WorkMap> MakeDefaultWorkMap(int threads) { return MakeThreadWorkMap(threads); }

}  // namespace dlsim
