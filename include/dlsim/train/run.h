// Entry point of `dlsim train`: simulate one scenario and print its report.
#ifndef DLSIM_TRAIN_RUN_H_
#define DLSIM_TRAIN_RUN_H_

#include <ostream>
#include <string>

#include "dlsim/hw/catalog.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

struct RunFlags {
  bool json = false;
  std::string trace_path;
};

// Simulates `options`, writes the terminal report (or JSON with flags.json) to `out` and
// errors to `err`. Returns the process exit code (0 also for infeasible configurations,
// which are reported as results).
int RunTrainCommand(const TrainOptions& options, const hw::Catalog& catalog, const RunFlags& flags,
                    std::ostream& out, std::ostream& err);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_RUN_H_
