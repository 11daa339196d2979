// MakeDefaultBackend for builds without MPI: threads on this machine.
#include "dlsim/plan/backend.h"

namespace dlsim::plan {

std::unique_ptr<Backend> MakeDefaultBackend(int threads) { return MakeThreadBackend(threads); }

}  // namespace dlsim::plan
