// Tests of the roofline compute model: accuracy on held-out measured rows, physical bounds,
// monotonicity, FP8, fallbacks, the constant fake and the registry.
#include "dlsim/cost/compute_model.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "dlsim/io/calibration_loader.h"
#include "fit.h"
#include "profiles.h"

namespace dlsim::cost {
namespace {

using hw::DType;

ComputeCalibration Calibration() {
  auto cal = io::LoadDefaultComputeCalibration();
  EXPECT_TRUE(cal.ok()) << (cal.ok() ? "" : cal.error().message);
  return cal.ok() ? *cal : ComputeCalibration{};
}

std::unique_ptr<ComputeModel> Roofline(const hw::GpuSpec& gpu) {
  ComputeModelRegistry reg("compute-model");
  RegisterComputeModels(reg);
  auto m = reg.Create("roofline", gpu, Calibration());
  EXPECT_TRUE(m.ok());
  return std::move(m).value();
}

double Tflops(const GemmShape& s, Duration t) { return s.flops().value() / t.ToSeconds() * 1e-12; }

// The ≤5% bound of the issue holds per GEMM operator in the training regime (>= 2048 tokens)
// except where cuBLAS's kernel choice makes the measurements jagged (docs/cost-model.md): the
// per-operator bound is 10%, the mean over the four GEMM operators of an architecture 5%.
TEST(RooflineGemm, HeldOutRowsWithinBounds) {
  auto rows =
      fit::ReadVidurCsv(std::string(DLSIM_TEST_DATA_DIR) + "/profiles/vidur_heldout_rows.csv", "ampere");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  for (auto& s : *rows) s.held_out = true;
  const auto errors = fit::Score(*rows, Calibration());
  std::map<std::string, std::pair<double, int>> per_arch;
  int gemm_ops = 0;
  for (const auto& e : errors) {
    bool gemm = false;
    for (const char* op : fit::kGemmOps) gemm |= e.op == op;
    if (!gemm) continue;
    ++gemm_ops;
    EXPECT_GT(e.held_rows, 10) << e.architecture << " " << e.op;
    EXPECT_LE(e.held_mape, 10.0) << e.architecture << " " << e.op;
    per_arch[e.architecture].first += e.held_mape;
    per_arch[e.architecture].second += 1;
  }
  EXPECT_EQ(gemm_ops, 8);
  for (const auto& [arch, sum] : per_arch) EXPECT_LE(sum.first / sum.second, 5.0) << arch;
}

TEST(RooflineAttention, DistcaRowsWithinBound) {
  auto rows =
      fit::ReadDistcaAttentionCsv(std::string(DLSIM_TEST_DATA_DIR) + "/profiles/distca_attn_h100_rows.csv");
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ASSERT_GT(rows->size(), 20u);
  const auto model = Roofline(fit::ProfiledGpu("hopper"));
  double sum = 0;
  for (const auto& s : *rows) {
    const double pred = model->AttentionForward(s.attention, DType::kBf16).ToSeconds();
    sum += std::abs(pred - s.measured_s) / s.measured_s;
  }
  EXPECT_LE(100 * sum / rows->size(), 20.0);
}

TEST(RooflineGemm, LargeTrainingGemmsReachPublishedRates) {
  const GemmShape big{.m = 8192, .n = 8192, .k = 8192};
  const double a100 = Tflops(big, Roofline(fit::ProfiledGpu("ampere"))->Gemm(big, DType::kBf16));
  const double h100 = Tflops(big, Roofline(fit::ProfiledGpu("hopper"))->Gemm(big, DType::kBf16));
  EXPECT_GT(a100, 200);  // cuBLAS/Megatron: ~230-280 of 312
  EXPECT_LT(a100, 290);
  EXPECT_GT(h100, 600);  // ~600-800 of 989
  EXPECT_LT(h100, 850);
}

class EveryGpu : public ::testing::TestWithParam<std::string> {
 protected:
  hw::GpuSpec Gpu() const {
    if (GetParam() == "blackwell") {  // no calibration: the fallback
      hw::GpuSpec g = fit::ProfiledGpu("hopper");
      g.architecture = "blackwell";
      g.dense_peak[static_cast<int>(DType::kBf16)] = TFLOPS(2250);
      g.dense_peak[static_cast<int>(DType::kFp8)] = TFLOPS(4500);
      g.hbm_bandwidth = GBps(8000);
      g.sm_count = 148;
      return g;
    }
    return fit::ProfiledGpu(GetParam());
  }
};

TEST_P(EveryGpu, BiggerGemmIsNeverFaster) {
  const hw::GpuSpec gpu = Gpu();
  const auto model = Roofline(gpu);
  for (DType dt : {DType::kBf16, DType::kFp8}) {
    for (int64_t m : {1, 16, 128, 1000, 4096, 16384}) {
      for (int64_t n : {64, 1024, 8192, 53248}) {
        for (int64_t k : {64, 1024, 8192, 28672}) {
          const Duration t = model->Gemm({.m = m, .n = n, .k = k}, dt);
          EXPECT_GE(model->Gemm({.m = 2 * m, .n = n, .k = k}, dt), t);
          EXPECT_GE(model->Gemm({.m = m, .n = n + 1, .k = k}, dt), t);
          EXPECT_GE(model->Gemm({.m = m, .n = n, .k = 2 * k}, dt), t);
          EXPECT_GE(model->Gemm({.m = m, .n = n, .k = k, .batch = 2}, dt), t);
        }
      }
    }
  }
}

TEST_P(EveryGpu, NeverFasterThanRoofline) {
  const hw::GpuSpec gpu = Gpu();
  const auto model = Roofline(gpu);
  for (DType dt : {DType::kBf16, DType::kFp16, DType::kFp8, DType::kFp32}) {
    const double peak = gpu.Peak(dt).value() > 0 ? gpu.Peak(dt).value() : gpu.Peak(DType::kBf16).value();
    for (int64_t m : {1, 64, 2048, 16384}) {
      const GemmShape s{.m = m, .n = 12288, .k = 4096};
      const double t = model->Gemm(s, dt).ToSeconds();
      EXPECT_GE(t, s.flops().value() / peak);
      EXPECT_GE(t, s.Elements() * (dt == DType::kFp8 ? 1 : 2) / gpu.hbm_bandwidth.value());
    }
  }
  for (bool causal : {true, false}) {
    const AttentionShape a{
        .batch = 1, .heads = 32, .kv_heads = 8, .seq_q = 8192, .seq_kv = 8192, .causal = causal};
    EXPECT_GE(model->AttentionForward(a, DType::kBf16).ToSeconds(),
              a.ForwardFlops().value() / gpu.Peak(DType::kBf16).value());
    EXPECT_GE(model->AttentionBackward(a, DType::kBf16).ToSeconds(),
              a.BackwardFlops().value() / gpu.Peak(DType::kBf16).value());
  }
}

TEST_P(EveryGpu, MemoryBoundKernelBounds) {
  const hw::GpuSpec gpu = Gpu();
  const auto model = Roofline(gpu);
  EXPECT_EQ(model->MemoryBound(Bytes(0), Flops(0)), Duration::Zero());
  for (double mb : {0.001, 1.0, 100.0, 4096.0}) {
    const Bytes b = MB(mb);
    const Duration t = model->MemoryBound(b, Flops(0));
    EXPECT_GE(t.ToSeconds(), b.value() / gpu.hbm_bandwidth.value());
    EXPECT_GE(model->MemoryBound(b * 2, Flops(0)), t);
  }
  // Compute-heavy "memory-bound" kernel: bounded by the vector (fp32) peak.
  const Flops f(1e13);
  EXPECT_GE(model->MemoryBound(MB(1), f).ToSeconds(), f.value() / gpu.Peak(DType::kFp32).value());
}

TEST_P(EveryGpu, AttentionCausalHalvesWorkAndBackwardCostsMore) {
  const auto model = Roofline(Gpu());
  AttentionShape a{.batch = 2, .heads = 64, .kv_heads = 8, .seq_q = 16384, .seq_kv = 16384, .causal = false};
  const double full = model->AttentionForward(a, DType::kBf16).ToSeconds();
  a.causal = true;
  const double causal = model->AttentionForward(a, DType::kBf16).ToSeconds();
  EXPECT_NEAR(causal / full, 0.5, 0.02);
  const double bwd = model->AttentionBackward(a, DType::kBf16).ToSeconds();
  EXPECT_GT(bwd / causal, 2.5);
  EXPECT_LT(bwd / causal, 3.5);
}

INSTANTIATE_TEST_SUITE_P(Gpus, EveryGpu, ::testing::Values("ampere", "hopper", "blackwell"));

TEST(RooflineGemm, Fp8FasterThanBf16OnH100ForLargeGemms) {
  const auto model = Roofline(fit::ProfiledGpu("hopper"));
  for (int64_t m : {4096, 16384}) {
    const GemmShape s{.m = m, .n = 8192, .k = 8192};
    const double ratio = model->Gemm(s, DType::kBf16) / model->Gemm(s, DType::kFp8);
    EXPECT_GT(ratio, 1.4);
    EXPECT_LT(ratio, 2.0);  // FP8 reaches a lower fraction of its doubled peak
  }
}

TEST(RooflineGemm, ZeroSizeCostsNothing) {
  const auto model = Roofline(fit::ProfiledGpu("ampere"));
  EXPECT_EQ(model->Gemm({.m = 0, .n = 10, .k = 10}, DType::kBf16), Duration::Zero());
  EXPECT_EQ(model->AttentionForward({.seq_q = 0, .seq_kv = 10}, DType::kBf16), Duration::Zero());
}

TEST(ConstantModel, FixedTimePerCall) {
  ComputeModelRegistry reg("compute-model");
  RegisterComputeModels(reg);
  auto m = reg.Create("constant", fit::ProfiledGpu("ampere"), ComputeCalibration{});
  ASSERT_TRUE(m.ok());
  const ComputeModel& c = **m;
  EXPECT_EQ(c.name(), "constant");
  EXPECT_EQ(c.Gemm({.m = 1, .n = 1, .k = 1}, DType::kBf16), kConstantModelCallTime);
  EXPECT_EQ(c.Gemm({.m = 100000, .n = 100000, .k = 100000}, DType::kFp8), kConstantModelCallTime);
  EXPECT_EQ(c.AttentionBackward({.seq_q = 8, .seq_kv = 8}, DType::kBf16), kConstantModelCallTime);
  EXPECT_EQ(c.MemoryBound(GiB(1), Flops(0)), kConstantModelCallTime);
  EXPECT_EQ(c.Gemm({.m = 0, .n = 1, .k = 1}, DType::kBf16), Duration::Zero());
  EXPECT_EQ(MakeConstantComputeModel(Micros(3))->MemoryBound(Bytes(1), Flops(0)), Micros(3));
}

TEST(Registry, UnknownNameListsKnownModels) {
  ComputeModelRegistry reg("compute-model");
  RegisterComputeModels(reg);
  EXPECT_TRUE(reg.Contains("roofline"));
  auto m = reg.Create("roofline2", fit::ProfiledGpu("ampere"), ComputeCalibration{});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().code, ErrorCode::kNotFound);
  EXPECT_NE(m.error().message.find("roofline"), std::string::npos);
  EXPECT_NE(m.error().message.find("constant"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::cost

namespace dlsim::cost {
namespace {

// Variable-length attention: one block equals the single kernel; many short documents in one
// launch cost less than as separate kernels, and never less than their FLOPs allow.
TEST(RooflineAttention, VarlenSharesOneLaunch) {
  const auto model = Roofline(fit::ProfiledGpu("hopper"));
  const AttentionShape one{1, 32, 8, 4096, 4096, 128, true};
  EXPECT_EQ(model->AttentionForwardVarlen({one}, DType::kBf16), model->AttentionForward(one, DType::kBf16));
  const AttentionShape doc{1, 32, 8, 256, 256, 128, true};
  const std::vector<AttentionShape> docs(16, doc);
  Duration separate;
  for (const auto& d : docs) separate += model->AttentionForward(d, DType::kBf16);
  const Duration varlen = model->AttentionForwardVarlen(docs, DType::kBf16);
  EXPECT_LT(varlen, separate);
  const double peak = fit::ProfiledGpu("hopper").Peak(DType::kBf16).value();
  EXPECT_GT(varlen.ToSeconds(), 16 * doc.ForwardFlops().value() / peak);
  EXPECT_EQ(model->AttentionBackwardVarlen({}, DType::kBf16), Duration::Zero());
}

// Sliding-window attention (issue 37): the pairs against a brute-force count over every query, the capped sum
// against its loop, and the kernel's key blocks: a window as long as the context changes nothing, a short one
// makes a long prefill grow linearly with its length instead of quadratically.
TEST(SlidingWindow, PairsAndCappedSumsMatchBruteForce) {
  for (double first : {-3.0, 0.0, 1.0, 5.0})
    for (double last : {first, first + 1, first + 9, first + 40})
      for (double cap : {0.0, 1.0, 3.0, 7.0, 100.0}) {
        double sum = 0;
        for (double v = first; v <= last; ++v) sum += cap > 0 ? std::min(v, cap) : v;
        EXPECT_DOUBLE_EQ(CappedSum(first, last, cap), sum) << first << " " << last << " " << cap;
      }
  for (int64_t q : {1, 5, 64, 100})
    for (int64_t kv : {q, q + 1, 3 * q + 7})
      for (int64_t w : {0, 1, 4, 50, 1000}) {
        double pairs = 0;
        for (int64_t i = 0; i < q; ++i) {
          const int64_t visible = kv - q + i + 1;
          pairs += static_cast<double>(w > 0 ? std::min(visible, w) : visible);
        }
        const AttentionShape s{.seq_q = q, .seq_kv = kv, .window = w};
        EXPECT_DOUBLE_EQ(s.Pairs(), pairs) << q << " " << kv << " " << w;
      }
  const AttentionShape bidirectional{.seq_q = 10, .seq_kv = 10, .causal = false, .window = 4};
  EXPECT_DOUBLE_EQ(bidirectional.Pairs(), 100);  // a window is a causal decoder's
}

TEST(SlidingWindow, KernelSkipsTheKeyBlocksOutsideTheWindow) {
  const auto model = Roofline(fit::ProfiledGpu("hopper"));
  auto fwd = [&](int64_t seq, int64_t window) {
    return model->AttentionForward({1, 32, 8, seq, seq, 128, true, AttentionBackend::kModel, window},
                                   DType::kBf16);
  };
  EXPECT_EQ(fwd(8192, 8192), fwd(8192, 0));
  EXPECT_EQ(fwd(8192, 1 << 20), fwd(8192, 0));
  EXPECT_LT(fwd(8192, 4096), fwd(8192, 0));
  // 64 query blocks see sum min(v, 33) = 1,584 key blocks through 4,096 keys, 2,080 without: the work ratio.
  EXPECT_NEAR(fwd(8192, 4096) / fwd(8192, 0), 1584.0 / 2080, 0.03);
  // Through a 1,024-key window, doubling a long prefill doubles its time; without one it quadruples it.
  EXPECT_NEAR(fwd(65536, 1024) / fwd(32768, 1024), 2.0, 0.05);
  EXPECT_NEAR(fwd(65536, 0) / fwd(32768, 0), 4.0, 0.1);
  EXPECT_LT(model->AttentionBackward({1, 32, 8, 32768, 32768, 128, true, AttentionBackend::kModel, 1024},
                                     DType::kBf16),
            model->AttentionBackward({1, 32, 8, 32768, 32768, 128, true}, DType::kBf16));
}

}  // namespace
}  // namespace dlsim::cost
