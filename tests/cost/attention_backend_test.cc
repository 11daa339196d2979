// Attention by kernel family (compute_calibration.h, kernel_time.h): a family's constants replace the
// architecture's own only where the shape names that family; PyTorch's default resolves per
// architecture; the per-CTA cost kv_half in closed form; the shipped families and bad files.
#include <gtest/gtest.h>

#include "dlsim/cost/kernel_time.h"
#include "dlsim/io/calibration_loader.h"

namespace dlsim::cost {
namespace {

ArchCalibration TwoFamilies() {
  ArchCalibration a;
  a.attention = {.fwd_efficiency = 0.5, .bwd_efficiency = 0.5, .overhead = Duration()};
  a.attention_backends[AttentionBackend::kCudnn] = {
      .fwd_efficiency = 1, .bwd_efficiency = 1, .overhead = Duration()};
  a.pytorch_default = AttentionBackend::kCudnn;
  return a;
}

TEST(AttentionBackend, FamiliesReplaceTheModelsConstantsOnlyWhereNamed) {
  const ArchCalibration a = TwoFamilies();
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e12, .sms = 1};
  AttentionShape s{
      .batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 128, .seq_kv = 128, .head_dim = 128, .causal = false};
  const double work = 4.0 * 128 * 128 * 128 / 1e15;                // one 128 x 128 block, one CTA on one SM
  EXPECT_DOUBLE_EQ(AttentionSeconds(s, false, a, r), work / 0.5);  // kModel: the architecture's own
  s.backend = AttentionBackend::kCudnn;
  EXPECT_DOUBLE_EQ(AttentionSeconds(s, false, a, r), work);
  s.backend = AttentionBackend::kPytorchDefault;  // cuDNN here
  EXPECT_DOUBLE_EQ(AttentionSeconds(s, false, a, r), work);
  s.backend = AttentionBackend::kFlash2;  // no entry: the architecture's own constants
  EXPECT_DOUBLE_EQ(AttentionSeconds(s, false, a, r), work / 0.5);
}

TEST(AttentionBackend, KvHalfSlowsACtaByKeysOverKeysPlusHalf) {
  ArchCalibration a = TwoFamilies();
  a.attention.kv_half = 128;  // as many keys as the one CTA iterates over: half the rate
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e12, .sms = 1};
  const AttentionShape s{
      .batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 128, .seq_kv = 128, .head_dim = 128, .causal = false};
  EXPECT_DOUBLE_EQ(AttentionSeconds(s, false, a, r), 2 * 4.0 * 128 * 128 * 128 / 1e15 / 0.5);
}

// The backward is another kernel: its own kv_half, head_dim_half and overhead where given (the fit gives
// them: docs/cost-model.md), the forward's where not.
TEST(AttentionBackend, BackwardHasItsOwnPrologueAndOverhead) {
  ArchCalibration a = TwoFamilies();
  a.attention.kv_half = 128;
  a.attention.overhead = Duration::Nanos(1'000);
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e12, .sms = 1};
  const AttentionShape s{
      .batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 128, .seq_kv = 128, .head_dim = 128, .causal = false};
  const double work = 4.0 * 128 * 128 * 128 / 1e15;  // one block at the full rate
  // No bwd_ terms: 2.5x the work at bwd_efficiency 0.5, at half rate (128 keys, kv_half 128).
  EXPECT_NEAR(AttentionSeconds(s, true, a, r), 1e-6 + 2.5 * work / 0.5 / 0.5, 1e-15);
  a.attention.bwd_kv_half = 384;        // 128 / (128 + 384): a quarter of the rate
  a.attention.bwd_head_dim_half = 128;  // (128 + 128) / 128: twice the work
  a.attention.bwd_overhead = Duration::Nanos(3'000);
  EXPECT_NEAR(AttentionSeconds(s, true, a, r), 3e-6 + 2.5 * work * 2 / 0.5 / 0.25, 1e-15);
  EXPECT_NEAR(AttentionSeconds(s, false, a, r), 1e-6 + work / 0.5 / 0.5, 1e-15);  // the forward's as before
  auto cal = io::ParseComputeCalibration(
      "architectures:\n  hopper:\n    attention_backends:\n      cudnn: {fwd_efficiency: 0.9, bwd_kv_half: "
      "384, "
      "bwd_head_dim_half: 48, bwd_overhead_us: 3}\n",
      "c.yaml");
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  const AttentionCalibration& c = cal->archs[0].attention_backends.at(AttentionBackend::kCudnn);
  EXPECT_EQ(c.bwd_kv_half, 384);
  EXPECT_EQ(c.bwd_head_dim_half, 48);
  EXPECT_EQ(c.bwd_overhead, Duration::Nanos(3'000));
  cal = io::ParseComputeCalibration(
      "architectures:\n  hopper:\n    attention_backends:\n      cudnn: {bwd_kv_half: -1}\n", "c.yaml");
  ASSERT_FALSE(cal.ok());
  EXPECT_NE(cal.error().message.find("bwd_kv_half"), std::string::npos) << cal.error().message;
}

TEST(AttentionBackend, NamesRoundTrip) {
  for (AttentionBackend b :
       {AttentionBackend::kModel, AttentionBackend::kPytorchDefault, AttentionBackend::kFlash2,
        AttentionBackend::kCudnn, AttentionBackend::kEfficient, AttentionBackend::kTriton,
        AttentionBackend::kMath})
    EXPECT_EQ(ParseAttentionBackend(AttentionBackendName(b)), b);
  EXPECT_FALSE(ParseAttentionBackend("fa3").has_value());
}

TEST(AttentionBackend, ShippedHopperFamiliesAreMeasuredAndCudnnIsPytorchsDefault) {
  auto cal = io::LoadDefaultComputeCalibration();
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  const ArchCalibration* hopper = cal->FindArchOrNull("hopper");
  ASSERT_NE(hopper, nullptr);
  EXPECT_EQ(hopper->pytorch_default, AttentionBackend::kCudnn);
  ASSERT_TRUE(hopper->attention_backends.count(AttentionBackend::kCudnn));
  ASSERT_TRUE(hopper->attention_backends.count(AttentionBackend::kFlash2));
  // cuDNN's fused Hopper kernels run faster than FlashAttention-2 (shared H200 set: 1.6-2x).
  EXPECT_GT(hopper->Attention(AttentionBackend::kCudnn).fwd_efficiency,
            1.4 * hopper->Attention(AttentionBackend::kFlash2).fwd_efficiency);
  const ArchCalibration* ampere = cal->FindArchOrNull("ampere");
  ASSERT_NE(ampere, nullptr);
  EXPECT_TRUE(ampere->attention_backends.empty());  // nothing measured: the architecture's own constants
}

TEST(AttentionBackend, BadFamiliesAreErrorsAtTheirKey) {
  const char* bad_name =
      "architectures:\n  hopper:\n    attention_backends:\n      fa3: {fwd_efficiency: 0.5}\n";
  auto r = io::ParseComputeCalibration(bad_name, "c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("c.yaml:4"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("expected an attention family"), std::string::npos) << r.error().message;
  const char* bad_default =
      "architectures:\n  hopper:\n    pytorch_default: flash\n    attention_backends:\n      cudnn: {}\n";
  r = io::ParseComputeCalibration(bad_default, "c.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pytorch_default"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace dlsim::cost
