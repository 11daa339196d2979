// The WorkMap across MPI ranks, for the cluster sweep and the planner (target dlsim_core_mpi; built from the
// MPI implementation when CMake finds MPI, from a threads-only one otherwise, so its users link it either
// way).
//
// `mpirun -n N dlsim cluster FILE --sweep` (or `dlsim plan FILE`): every rank builds the same batch, computes
// the items whose index i has i % N == rank on its own threads, and all ranks exchange the results
// (MPI_Allgatherv), so every rank holds them all in item order and rank 0 prints.
//
//   std::unique_ptr<WorkMap> map = MakeDefaultWorkMap(threads);  // MPI under mpirun, else threads
#ifndef DLSIM_CORE_MPI_WORK_MAP_H_
#define DLSIM_CORE_MPI_WORK_MAP_H_

#include <memory>

#include "dlsim/core/work_map.h"

namespace dlsim {

// True when this build has MPI and an MPI launcher started this process (OpenMPI, PMIx or PMI
// environment variables).
bool LaunchedByMpi();

// The MPI map (threads only in a build without MPI). MPI is initialised (funneled) unless it
// already is, and finalised when the map that initialised it is destroyed: one MPI map per
// process. `threads_per_rank` <= 0: the cores divided by the ranks on this node.
std::unique_ptr<WorkMap> MakeMpiWorkMap(int threads_per_rank);

// MakeMpiWorkMap(threads) under an MPI launcher, MakeThreadWorkMap(threads) otherwise (a plain
// start never initialises MPI, so the binary runs where no launcher is).
std::unique_ptr<WorkMap> MakeDefaultWorkMap(int threads);

}  // namespace dlsim

#endif  // DLSIM_CORE_MPI_WORK_MAP_H_
