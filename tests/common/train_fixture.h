// A GoogleTest fixture for tests that simulate training steps on the embedded catalogs: loads them once per
// test, registers the pipeline schedules, and runs a step (a failed run fails the test and returns an
// empty result).
//
//   class MyTest : public dlsim::testing::CatalogTrainTest {};
//   TEST_F(MyTest, X) { train::TrainOptions o; o.model = Model("llama3-8b"); ... Run(o); }
#ifndef DLSIM_TESTS_COMMON_TRAIN_FIXTURE_H_
#define DLSIM_TESTS_COMMON_TRAIN_FIXTURE_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/pipeline_schedule.h"
#include "dlsim/train/step_model.h"

namespace dlsim::testing {

class CatalogTrainTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalogs = io::LoadCatalogs({});
    ASSERT_TRUE(catalogs.ok());
    catalogs_ = std::make_unique<catalog::Catalogs>(std::move(catalogs).value());
    train::RegisterPipelineSchedules(schedules_);
  }
  // A catalog model by name (it must exist).
  model::ModelSpec Model(const std::string& name) const { return **catalogs_->models.Find(name); }
  train::StepResult Run(const train::TrainOptions& o) {
    auto owned = train::MakeStepContext(o, *catalogs_);
    EXPECT_TRUE(owned.ok()) << owned.error().message;
    if (!owned.ok()) return {};
    Result<train::StepResult> r = train::SimulateTrainingStep(o, (*owned)->ctx, schedules_, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : train::StepResult{};
  }

  std::unique_ptr<catalog::Catalogs> catalogs_;
  train::PipelineScheduleRegistry schedules_{"pipeline-schedule"};
};

}  // namespace dlsim::testing

#endif  // DLSIM_TESTS_COMMON_TRAIN_FIXTURE_H_
