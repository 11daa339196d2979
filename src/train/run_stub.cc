// Temporary: replaced by run.cc when the training simulation is wired.
#include "dlsim/train/run.h"

namespace dlsim::train {

int RunTrainCommand(const TrainOptions&, const hw::Catalog&, const RunFlags&, std::ostream&, std::ostream& err) {
  err << "training simulation not available yet\n";
  return 2;
}

}  // namespace dlsim::train
