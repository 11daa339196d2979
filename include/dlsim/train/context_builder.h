// Builds a StepContext from resolved options, the catalogs and the calibrations: looks up
// the GPU, node and network, builds the fabric and the cost models. No files are read here.
#ifndef DLSIM_TRAIN_CONTEXT_BUILDER_H_
#define DLSIM_TRAIN_CONTEXT_BUILDER_H_

#include <memory>
#include <string>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/net/calibration.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_context.h"

namespace dlsim::train {

// Owns the models a StepContext points to. Not copyable (the context holds pointers).
struct OwnedStepContext {
  hw::GpuSpec gpu;
  std::unique_ptr<cost::ComputeModel> compute;
  std::unique_ptr<net::CollectiveModel> comm;
  StepContext ctx;
  OwnedStepContext() = default;
  OwnedStepContext(const OwnedStepContext&) = delete;
  OwnedStepContext& operator=(const OwnedStepContext&) = delete;
};

struct ModelChoice {
  std::string compute;  // empty: the scenario's cost.model (TrainOptions::compute_model)
  std::string collective = "nccl";
};

Result<std::unique_ptr<OwnedStepContext>> MakeStepContext(
    const TrainOptions& o, const hw::Catalog& catalog, const cost::ComputeCalibration& compute_cal,
    const net::NetworkCalibration& net_cal, const ModelChoice& choice = {},
    const cost::TrainingCalibration* training = nullptr);

// The same with the catalogs' calibrations: kernel-level compute with the training constants
// applied, and the network calibration. What every training driver (train, plan, validate,
// repro) uses, so they agree.
Result<std::unique_ptr<OwnedStepContext>> MakeStepContext(const TrainOptions& o,
                                                          const catalog::Catalogs& catalogs,
                                                          const ModelChoice& choice = {});

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CONTEXT_BUILDER_H_
