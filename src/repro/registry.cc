// One line per reproduced system; each lives in its own file in this folder.
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {

void RegisterSelectN(ReproRegistry& reg);  // repro_select_n.cc

void RegisterReproductions(ReproRegistry& reg) {
  RegisterSelectN(reg);
}

}  // namespace dlsim::repro
