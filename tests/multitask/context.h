// The built-in catalogs and a training cost context on DGX-A100 nodes, for the multitask tests.
#ifndef DLSIM_TESTS_MULTITASK_CONTEXT_H_
#define DLSIM_TESTS_MULTITASK_CONTEXT_H_

#include <memory>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/studies/multitask/options.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/node_defaults.h"

namespace dlsim::multitask::testing {

inline const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* const cat = new catalog::Catalogs(io::LoadCatalogs({}).value());
  return *cat;
}

inline train::HardwareOptions DgxA100(int gpus) {
  train::HardwareOptions h;
  train::ApplyNodeDefaults(*Cat().hardware.FindNode("dgx-a100").value(), h);
  h.gpus = gpus;
  return h;
}

inline const train::StepContext& Ctx() {
  static const train::OwnedStepContext* const owned = [] {
    train::TrainOptions o;
    o.hardware = DgxA100(8);
    return train::MakeStepContext(o, Cat()).value().release();
  }();
  return owned->ctx;
}

inline MultitaskOptions Options(Workload w, int gpus) {
  MultitaskOptions o;
  o.workload = std::move(w);
  o.hardware = DgxA100(gpus);
  return o;
}

}  // namespace dlsim::multitask::testing

#endif  // DLSIM_TESTS_MULTITASK_CONTEXT_H_
