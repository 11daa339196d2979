// Kernel ops priced through a compute model (cost/kernel_op.h): each kind reaches the model's own
// method with the row's shape, and families name what a row is scored in.
#include "dlsim/cost/kernel_op.h"

#include <gtest/gtest.h>

namespace dlsim::cost {
namespace {

// Prices each method with a distinct closed form, so a row routed to the wrong one is seen.
class Probe final : public ComputeModel {
 public:
  Duration Gemm(const GemmShape& s, hw::DType dt) const override {
    return Seconds(s.flops().value() * 1e-15 * (dt == hw::DType::kFp8 ? 0.5 : 1));
  }
  Duration AttentionForward(const AttentionShape& s, hw::DType) const override {
    return Seconds(s.Pairs() * 1e-9);
  }
  Duration AttentionBackward(const AttentionShape& s, hw::DType) const override {
    return Seconds(s.Pairs() * 3e-9);
  }
  Duration MemoryBound(Bytes moved, Flops, MemoryKind kind) const override {
    return Seconds(moved.ToBytes() * 1e-12 * (kind == MemoryKind::kElementwise ? 1 : 100));
  }
  std::string_view name() const override { return "probe"; }
};

TEST(KernelOp, EachKindReachesItsOwnMethodWithTheRowsShape) {
  const Probe m;
  KernelOp gemm{.kind = KernelOpKind::kGemm, .gemm = {.m = 1000, .n = 2000, .k = 500, .batch = 2}};
  EXPECT_DOUBLE_EQ(PriceKernelOp(m, gemm).ToSeconds(), 2.0 * 1000 * 2000 * 500 * 2 * 1e-15);
  gemm.dtype = hw::DType::kFp8;
  EXPECT_DOUBLE_EQ(PriceKernelOp(m, gemm).ToSeconds(), 2.0 * 1000 * 2000 * 500 * 2 * 1e-15 * 0.5);
  KernelOp fwd{.kind = KernelOpKind::kAttentionForward,
               .attention = {.batch = 1, .heads = 1, .kv_heads = 1, .seq_q = 4, .seq_kv = 4, .causal = true}};
  EXPECT_NEAR(PriceKernelOp(m, fwd).ToSeconds(), 10e-9, 1e-15);  // causal 4x4: 4+3+2+1 pairs
  KernelOp bwd = fwd;
  bwd.kind = KernelOpKind::kAttentionBackward;
  EXPECT_NEAR(PriceKernelOp(m, bwd).ToSeconds(), 30e-9, 1e-15);
  KernelOp both = fwd;  // flash-attention's "forward + backward": one call of each, timed together
  both.kind = KernelOpKind::kAttentionForwardBackward;
  EXPECT_NEAR(PriceKernelOp(m, both).ToSeconds(), 40e-9, 1e-15);
  const KernelOp ew{.kind = KernelOpKind::kElementwise, .bytes = Bytes(1e9)};
  EXPECT_NEAR(PriceKernelOp(m, ew).ToSeconds(), 1e-3, 1e-12);  // streamed, not a normalization
}

TEST(KernelOp, NamesRoundTripAndFamiliesSplitByDtypeAndBackend) {
  for (KernelOpKind k :
       {KernelOpKind::kGemm, KernelOpKind::kAttentionForward, KernelOpKind::kAttentionBackward,
        KernelOpKind::kElementwise, KernelOpKind::kAttentionForwardBackward})
    EXPECT_EQ(ParseKernelOpKind(KernelOpKindName(k)), k);
  EXPECT_FALSE(ParseKernelOpKind("conv").has_value());
  EXPECT_EQ(KernelOpFamily({.kind = KernelOpKind::kGemm, .dtype = hw::DType::kFp8}), "gemm fp8");
  EXPECT_EQ(KernelOpFamily({.kind = KernelOpKind::kAttentionBackward, .backend = "cudnn"}),
            "attention_bwd cudnn");
  EXPECT_EQ(KernelOpFamily({.kind = KernelOpKind::kAttentionForward}), "attention_fwd unknown");
  EXPECT_EQ(KernelOpFamily({.kind = KernelOpKind::kAttentionForwardBackward, .backend = "flash"}),
            "attention_fwd_bwd flash");
}

}  // namespace
}  // namespace dlsim::cost
