// Everything a simulation reads that is not the scenario: the hardware and model catalogs and
// the calibrations, each with its source (data/catalog/, data/calibration/). io::LoadCatalogs
// fills it from the embedded files plus `--catalog` files; every module's Simulate borrows it.
//
//   Result<catalog::Catalogs> cat = io::LoadCatalogs({});
//   Result<train::StepResult> r = train::Simulate(options, *cat, /*sink=*/nullptr);
//
// A plain value: copyable, immutable once loaded by convention, safe to share between threads
// for reading.
#ifndef DLSIM_CATALOG_CATALOGS_H_
#define DLSIM_CATALOG_CATALOGS_H_

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/cost/prediction_intervals.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/hw/catalog.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/model/multimodal.h"
#include "dlsim/net/calibration.h"

namespace dlsim::catalog {

struct Catalogs {
  hw::Catalog hardware;
  model::ModelCatalog models;
  // Vision encoder + projector + LLM models (`multimodal_models:`), their LLMs resolved from `models`.
  model::MultimodalCatalog multimodal;
  // Kernel-level compute constants (data/calibration/compute.yaml): what `serve` prices with.
  cost::ComputeCalibration compute;
  // Collective constants fitted on nccl-tests (data/calibration/network.yaml).
  net::NetworkCalibration network;
  // End-to-end training constants (data/calibration/training.yaml), layered over `compute` by
  // train::MakeStepContext, so `train`, `plan` and `validate` price with the same numbers.
  cost::TrainingCalibration training;
  // How sure a predicted step time is, per regime (data/calibration/intervals.yaml).
  cost::PredictionIntervals intervals;
};

}  // namespace dlsim::catalog

#endif  // DLSIM_CATALOG_CATALOGS_H_
