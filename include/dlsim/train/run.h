// Entry point of `dlsim train`: simulate one scenario and print its report.
#ifndef DLSIM_TRAIN_RUN_H_
#define DLSIM_TRAIN_RUN_H_

#include <ostream>
#include <string>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/net/calibration.h"
#include "dlsim/train/options.h"
#include "dlsim/train/training_calibration.h"

namespace dlsim::train {

struct RunFlags {
  bool json = false;
  std::string trace_path;
};

// The calibrations embedded in the binary (data/calibration/): kernel-level compute,
// network, and the end-to-end training constants. Every training driver (train, plan,
// validate) uses these, so they agree.
struct DefaultCalibrations {
  cost::ComputeCalibration compute;
  net::NetworkCalibration network;
  TrainingCalibration training;
};
Result<DefaultCalibrations> LoadDefaultCalibrations();

// Simulates `options`, writes the terminal report (or JSON with flags.json) to `out` and
// errors to `err`. Returns the process exit code (0 also for infeasible configurations,
// which are reported as results).
int RunTrainCommand(const TrainOptions& options, const hw::Catalog& catalog, const RunFlags& flags,
                    std::ostream& out, std::ostream& err);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_RUN_H_
