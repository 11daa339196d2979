// Data-aware steps: uniform contents reproduce the uniform simulation exactly; skewed
// contents create stragglers that the uniform model cannot see.
#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/step_model.h"

namespace dlsim::train {
namespace {

class DataStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalogs = io::LoadCatalogs({});
    ASSERT_TRUE(catalogs.ok());
    catalogs_ = std::make_unique<catalog::Catalogs>(std::move(catalogs).value());
    RegisterPipelineSchedules(schedules_);
    o_.model = **catalogs_->models.Find("llama3-8b");
    o_.hardware.gpu = "h100-sxm5-80gb";
    o_.hardware.node = "dgx-h100";
    o_.hardware.gpus = 16;
    o_.training.seq_len = 4096;
    o_.training.global_batch = 16;
    o_.parallel.tp = 2;
    o_.parallel.pp = 2;
    o_.parallel.sequence_parallel = true;
  }
  StepResult Run() {
    auto owned = MakeStepContext(o_, *catalogs_);
    EXPECT_TRUE(owned.ok());
    Result<StepResult> r = SimulateTrainingStep(o_, (*owned)->ctx, schedules_, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? *r : StepResult{};
  }
  data::DataOptions Fixed(int64_t length, const std::string& policy) {
    data::DataOptions d;
    d.lengths.distribution = "fixed";
    d.lengths.value = static_cast<double>(length);
    d.policy = policy;
    d.steps = 3;
    return d;
  }

  std::unique_ptr<catalog::Catalogs> catalogs_;
  PipelineScheduleRegistry schedules_{"pipeline-schedule"};
  TrainOptions o_;
};

TEST_F(DataStepsTest, UniformContentsEqualTheUniformModel) {
  const StepResult uniform = Run();
  ASSERT_TRUE(uniform.feasible) << uniform.reason;
  o_.data = Fixed(4096, "pack");
  const StepResult data = Run();
  ASSERT_TRUE(data.feasible) << data.reason;
  ASSERT_TRUE(data.data.has_value());
  EXPECT_NEAR(data.step_time_s, uniform.step_time_s, 1e-9);
  EXPECT_EQ(data.data->steps, 3);
  EXPECT_NEAR(data.data->straggler_max_s, 0, 1e-12);
  EXPECT_NEAR(data.data->padding_fraction, 0, 1e-12);
  EXPECT_NEAR(data.peak_memory.ToBytes(), uniform.peak_memory.ToBytes(), 1);
}

// Regression (issue 18): with documents longer than the budget, a step has fewer documents than
// DP replicas. The idle replicas still join the gradient reduction, so the step lasts as long as
// the busiest replica; it used to last 0 ns (the reduction waited for buckets the idle replicas
// never produced) with inf throughput and feasible: true.
TEST_F(DataStepsTest, FewerDocumentsThanReplicasIsARealStep) {
  o_.parallel.pp = 1;
  o_.parallel.tp = 2;
  o_.hardware.gpus = 8;  // dp 4
  o_.data = Fixed(50000, "pack");
  o_.training.global_batch = 16;
  const StepResult r = Run();
  ASSERT_TRUE(r.feasible) << r.reason;
  ASSERT_TRUE(r.data.has_value());
  EXPECT_GT(r.step_time_s, 0);
  EXPECT_GT(r.data->straggler_max_s, 0);              // idle replicas wait for the busy one
  EXPECT_GE(r.step_time_s, r.data->straggler_max_s);  // the step spans the busiest replica's compute
  EXPECT_GT(r.breakdown.compute_s, 0);
  EXPECT_TRUE(std::isfinite(r.tokens_per_s) && r.tokens_per_s > 0);
  EXPECT_TRUE(std::isfinite(r.mfu) && r.mfu > 0 && r.mfu < 1);
}

TEST_F(DataStepsTest, SkewedLengthsCreateStragglers) {
  data::DataOptions d;
  d.lengths.distribution = "lognormal";
  d.lengths.median = 600;
  d.lengths.sigma = 1.5;
  d.lengths.max_len = 4096;
  d.policy = "pad";
  d.steps = 4;
  o_.data = d;
  o_.training.micro_batch = 2;  // two documents per micro-batch: the shorter is padded
  const StepResult r = Run();
  ASSERT_TRUE(r.data.has_value()) << r.reason;
  EXPECT_GT(r.data->straggler_mean_s, 0);
  EXPECT_GT(r.data->padding_fraction, 0.1);
  EXPECT_LE(r.data->p50_s, r.data->max_s);
}

// An unknown policy is an error, not an infeasible layout (infeasibility is a property of the
// configuration; a wrong name is bad input).
TEST_F(DataStepsTest, UnknownPolicyIsAnError) {
  o_.data = Fixed(4096, "packing");
  auto owned = MakeStepContext(o_, *catalogs_);
  ASSERT_TRUE(owned.ok());
  Result<StepResult> r = SimulateTrainingStep(o_, (*owned)->ctx, schedules_, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().code, ErrorCode::kInfeasible);
  EXPECT_NE(r.error().message.find("unknown data-policy 'packing' (did you mean 'pack'?)"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace dlsim::train
