// One line per reproduced system; each lives in its own file in this folder.
#include "dlsim/repro/reproduction.h"

namespace dlsim::repro {

void RegisterReproductions(ReproRegistry& reg) {
  (void)reg;  // entries are added here as their systems land
}

}  // namespace dlsim::repro
