// Shared fixture of the planner tests: catalogs, calibrations and a context
// factory.
#ifndef DLSIM_TESTS_PLAN_PLAN_TEST_UTIL_H_
#define DLSIM_TESTS_PLAN_PLAN_TEST_UTIL_H_

#include <gtest/gtest.h>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/plan/planner.h"

namespace dlsim::plan::testing {

class PlanFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = io::LoadCatalogs({});
    ASSERT_TRUE(cat.ok()) << cat.error().message;
    catalogs_ = std::move(*cat);
    auto compute = io::LoadDefaultComputeCalibration();
    ASSERT_TRUE(compute.ok());
    compute_ = *compute;
    auto network = io::LoadDefaultNetworkCalibration();
    ASSERT_TRUE(network.ok());
    network_ = *network;
  }
  io::PlanScenario Load(const std::string& name) {
    auto s = io::LoadPlanScenarioFile(std::string(DLSIM_TEST_DATA_DIR) + "/plan/" + name, catalogs_.hardware,
                                      catalogs_.models);
    EXPECT_TRUE(s.ok()) << s.error().message;
    return s.ok() ? *s : io::PlanScenario{};
  }
  ContextFactory Factory(const train::TrainOptions& base) {
    return [this, base] { return train::MakeStepContext(base, catalogs_.hardware, compute_, network_); };
  }
  catalog::Catalogs catalogs_;
  cost::ComputeCalibration compute_;
  net::NetworkCalibration network_;
};

}  // namespace dlsim::plan::testing

#endif  // DLSIM_TESTS_PLAN_PLAN_TEST_UTIL_H_
