// QSync's pieces: the replayer in closed form (a constant-cost model), precision legality, and the
// allocator's contract (keeps up, never more loss than uniform int8, all fp32 when time allows).
#include <gtest/gtest.h>

#include "dlsim/studies/mixprec/allocator.h"

namespace dlsim::mixprec {
namespace {

hw::GpuSpec Gpu(bool int8) {
  hw::GpuSpec g;
  g.name = "test";
  g.dense_peak[static_cast<int>(hw::DType::kFp32)] = TFLOPS(10);
  g.dense_peak[static_cast<int>(hw::DType::kFp16)] = TFLOPS(80);
  if (int8) g.dense_peak[static_cast<int>(hw::DType::kInt8)] = TFLOPS(160);
  g.hbm_bandwidth = GBps(300);
  g.hbm_capacity = GiB(16);
  return g;
}

TEST(Replayer, SumsOpsAndCastsInClosedForm) {
  const auto model = cost::MakeConstantComputeModel(Micros(10));
  std::vector<PrecOp> ops = BertEncoderOps({.layers = 1});
  ops.resize(3);  // qkv, scores, softmax
  // GEMM: 3 calls (forward, dgrad, wgrad); memory-bound: 3 x one call; a cast: 2 calls.
  EXPECT_EQ(ReplayIteration(ops, {Precision::kFp16, Precision::kFp16, Precision::kFp16}, *model), Micros(90));
  EXPECT_EQ(ReplayIteration(ops, {Precision::kInt8, Precision::kFp16, Precision::kFp32}, *model),
            Micros(130));
}

TEST(Replayer, LegalityAndIndicator) {
  const std::vector<PrecOp> ops = BertEncoderOps({.layers = 2});
  ASSERT_EQ(ops.size(), 20u);
  EXPECT_TRUE(Allowed(ops[0], Precision::kInt8, Gpu(true)));
  EXPECT_FALSE(Allowed(ops[0], Precision::kInt8, Gpu(false)));
  EXPECT_FALSE(Allowed(ops[2], Precision::kInt8, Gpu(true)));  // softmax has no int8 kernel
  const Plan fp32(ops.size(), Precision::kFp32), fp16(ops.size(), Precision::kFp16);
  EXPECT_EQ(IndicatorLoss(ops, fp32), 0);
  EXPECT_EQ(IndicatorLoss(ops, fp16), 20);
  EXPECT_LT(PlanMemory(ops, fp16), PlanMemory(ops, fp32));
}

class AllocatorTest : public ::testing::Test {
 protected:
  AllocatorTest() : gpu_(Gpu(true)) {
    model_ = cost::MakeRooflineComputeModel(gpu_, cost::ComputeCalibration{});
    ops_ = BertEncoderOps({.layers = 4, .batch = 8});
    for (size_t i = 0; i < ops_.size(); ++i) ops_[i].sensitivity = 1 + static_cast<double>(i % 7);
    RegisterAllocators(reg_);
  }
  Allocation Run(const std::string& name, Duration target) {
    auto a = (*reg_.Create(name))->Allocate({&ops_, &gpu_, model_.get(), target, gpu_.hbm_capacity});
    EXPECT_TRUE(a.ok());
    return *a;
  }
  hw::GpuSpec gpu_;
  std::unique_ptr<cost::ComputeModel> model_;
  std::vector<PrecOp> ops_;
  AllocatorRegistry reg_{"precision-allocator"};
};

TEST_F(AllocatorTest, QSyncKeepsUpWithLessLossThanUniformInt8) {
  const Allocation int8 = Run("uniform-int8", Duration::Max());
  const Allocation fp32 = Run("uniform-fp32", Duration::Max());
  ASSERT_LT(int8.time, fp32.time);
  const Duration target = Seconds((int8.time.ToSeconds() + fp32.time.ToSeconds()) / 2);
  const Allocation q = Run("qsync", target);
  EXPECT_TRUE(q.meets_target);
  EXPECT_LE(q.time, target);
  EXPECT_LT(q.loss, int8.loss);
  EXPECT_GT(q.loss, 0);
  EXPECT_EQ(q.time, ReplayIteration(ops_, q.plan, *model_));  // the reported time is the replayed one
}

TEST_F(AllocatorTest, QSyncEndsAtFp32WithTimeToSpareAndAtTheFastestWithNone) {
  const Allocation all = Run("qsync", Duration::Max());
  EXPECT_EQ(all.loss, 0);
  const Allocation none = Run("qsync", Duration::Zero());
  EXPECT_FALSE(none.meets_target);
  EXPECT_EQ(none.plan, Run("uniform-int8", Duration::Max()).plan);
}

TEST_F(AllocatorTest, TooLittleMemoryIsInfeasible) {
  auto a = (*reg_.Create("qsync"))->Allocate({&ops_, &gpu_, model_.get(), Duration::Max(), MiB(1)});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().code, ErrorCode::kInfeasible);
}

}  // namespace
}  // namespace dlsim::mixprec
