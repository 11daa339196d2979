// Shared set-up of the serving tests: catalogs, calibrations and the serve environment.
#ifndef DLSIM_TESTS_SERVE_TEST_ENV_H_
#define DLSIM_TESTS_SERVE_TEST_ENV_H_

#include <gtest/gtest.h>

#include <memory>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/serve/setup.h"

namespace dlsim::serve::testing {

struct TestEnv {
  catalog::Catalogs catalogs;
  std::unique_ptr<ServeEnvironment> env;
};

inline const TestEnv& Env() {
  static const TestEnv* e = [] {
    auto* t = new TestEnv;
    t->catalogs = std::move(io::LoadCatalogs({}).value());
    t->env = std::move(MakeServeEnvironment(io::LoadDefaultComputeCalibration().value(),
                                            io::LoadDefaultNetworkCalibration().value())
                           .value());
    return t;
  }();
  return *e;
}

inline ServeOptions BaseOptions(const std::string& model, const std::string& gpu, int tp = 1) {
  ServeOptions o;
  o.name = "test";
  o.model = *Env().catalogs.models.Find(model).value();
  o.gpu = *Env().catalogs.hardware.FindGpu(gpu).value();
  o.hardware.tp = tp;
  return o;
}

}  // namespace dlsim::serve::testing

#endif  // DLSIM_TESTS_SERVE_TEST_ENV_H_
