// Misaligned GEMMs (compute_model.h GemmLayout, kernel_time.h GemmAlignmentBytes / GemmSeconds): the
// alignment of each layout's leading dimensions in closed form, the penalty (and split-K's reduction kernel,
// the other shape-dependent kernel choice) in closed form, what it leaves
// alone (fp32, aligned shapes, kernels that lay out their own operands), the shipped Hopper constants against
// the LM-head GEMMs of a real profiled H200 step, and bad calibration files.
#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/cost/kernel_time.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::cost {
namespace {

TEST(GemmAlignment, LeadingDimensionsByLayout) {
  // Row-major (torch.mm): k and n. GPT-2's 50,257-token vocabulary is 2-byte aligned in bf16.
  EXPECT_EQ(GemmAlignmentBytes({.m = 2048, .n = 50257, .k = 1600}, 2.0), 2);
  EXPECT_EQ(GemmAlignmentBytes({.m = 2048, .n = 1600, .k = 50257}, 2.0), 2);
  EXPECT_EQ(GemmAlignmentBytes({.m = 2047, .n = 1600, .k = 2048}, 2.0), 16);  // m is not a leading dimension
  EXPECT_EQ(GemmAlignmentBytes({.m = 8, .n = 1604, .k = 4096}, 2.0), 8);      // 3,208 bytes: 8-byte aligned
  // A weight gradient's leading dimensions are m and n: any token count k is aligned.
  EXPECT_EQ(GemmAlignmentBytes({1600, 4800, 2047, 1, GemmLayout::kWeightGradient}, 2.0), 16);
  EXPECT_EQ(GemmAlignmentBytes({50257, 1600, 2048, 1, GemmLayout::kWeightGradient}, 2.0), 2);
  EXPECT_EQ(GemmAlignmentBytes({1, 4097, 255, 8, GemmLayout::kKernelManaged}, 2.0), 16);
  EXPECT_EQ(GemmAlignmentBytes({.m = 64, .n = 24, .k = 4096}, 1.0), 8);  // fp8: 16 elements make 16 bytes
  EXPECT_EQ(GemmAlignmentBytes({.m = 64, .n = 4, .k = 3}, 4.0), 4);      // fp32: 12 bytes
}

ArchCalibration Penalised() {
  ArchCalibration a;
  a.tile_m = a.tile_n = 128;
  a.gemm_overhead = Duration::Nanos(1'000);
  a.gemm_alignment = {.compute_exponent = 1, .memory_exponent = 0.5, .overhead = Duration::Nanos(2'000)};
  return a;
}

TEST(GemmAlignment, PenaltyInClosedForm) {
  const ArchCalibration a = Penalised();
  const GemmCalibration g{.max_efficiency = 1, .k_half = 0, .tiles_half = 0, .mem_efficiency = 1};
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e12, .sms = 1};
  // tiles_half 0: fill 1, so the compute is flops / peak; 2-byte alignment: x 16 / 2 = 8 slower.
  const GemmShape odd{.m = 4096, .n = 4097, .k = 4096};
  const double flops = 2.0 * 4096 * 4097 * 4096, bytes = 2.0 * (4096.0 * 4096 + 4096.0 * 4097 * 2);
  EXPECT_NEAR(GemmSeconds(odd, 2.0, a, g, r), 3e-6 + std::max(flops / 1e15 * 8, bytes / 1e12 * std::sqrt(8)),
              1e-12);
  const GemmShape even{.m = 4096, .n = 4096, .k = 4096};
  EXPECT_NEAR(GemmSeconds(even, 2.0, a, g, r), 1e-6 + 2.0 * 4096 * 4096 * 4096 / 1e15, 1e-12);
  EXPECT_NEAR(GemmSeconds(odd, 4.0, a, g, r), 1e-6 + std::max(flops / 1e15, 2 * bytes / 1e12),
              1e-12);  // fp32: not penalised
}

TEST(GemmAlignment, AMisalignedGemmRunsItsOwnCurve) {
  ArchCalibration a = Penalised();
  a.gemm_alignment.k_half = 512;
  a.gemm_alignment.tiles_half = 2;
  const GemmCalibration g{.max_efficiency = 1, .k_half = 64, .tiles_half = 1, .mem_efficiency = 1};
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e15, .sms = 100};
  // Under one tile on 100 SMs: the aligned curve fills tiles / (tiles + 100); the misaligned one
  // tiles / (tiles + 200), its loop reaches half rate at k = 512, and its peak is 8x lower (exponent 1).
  const GemmShape odd{.m = 128, .n = 127, .k = 1 << 16}, even{.m = 128, .n = 128, .k = 1 << 16};
  const double k = 1 << 16, tiles_odd = 128.0 * 127 / (128 * 128), tiles_even = 1;
  const double odd_s = odd.flops().value() / (1e15 / 8 * k / (k + 512)) / (tiles_odd / (tiles_odd + 200));
  EXPECT_NEAR(GemmSeconds(odd, 2.0, a, g, r), 3e-6 + odd_s, 1e-12);
  const double even_s = even.flops().value() / (1e15 * k / (k + 64)) / (tiles_even / (tiles_even + 100));
  EXPECT_NEAR(GemmSeconds(even, 2.0, a, g, r), 1e-6 + even_s, 1e-12);
}

// memory_overlap < 1: a misaligned kernel's narrow loads overlap its math only partly, time = max + (1 -
// overlap) min; aligned and fp32 GEMMs keep max(compute, memory).
TEST(GemmAlignment, MisalignedLoadsOverlapTheMathByMemoryOverlap) {
  ArchCalibration a = Penalised();
  a.gemm_alignment.memory_overlap = 0.25;
  const GemmCalibration g{.max_efficiency = 1, .k_half = 0, .tiles_half = 0, .mem_efficiency = 1};
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e12, .sms = 1};
  const GemmShape odd{.m = 4096, .n = 4097, .k = 4096};
  const double compute = 2.0 * 4096 * 4097 * 4096 / 1e15 * 8;
  const double memory = 2.0 * (4096.0 * 4096 + 4096.0 * 4097 * 2) / 1e12 * std::sqrt(8);
  EXPECT_NEAR(GemmSeconds(odd, 2.0, a, g, r),
              3e-6 + std::max(compute, memory) + 0.75 * std::min(compute, memory), 1e-12);
  const GemmShape even{.m = 4096, .n = 4096, .k = 4096};
  EXPECT_NEAR(GemmSeconds(even, 2.0, a, g, r), 1e-6 + 2.0 * 4096 * 4096 * 4096 / 1e15, 1e-12);
  const double fp32_memory = 2 * 2.0 * (4096.0 * 4096 + 4096.0 * 4097 * 2) / 1e12;
  EXPECT_NEAR(GemmSeconds(odd, 4.0, a, g, r), 1e-6 + std::max(compute / 8, fp32_memory), 1e-12);
}

// Split-K: fewer output tiles than SMs and k >= min_k add the reduction kernel's overhead; a full wave of
// tiles, or a short k, does not.
TEST(GemmAlignment, SplitKAddsTheReductionKernelBelowOneWave) {
  ArchCalibration a = Penalised();
  a.split_k = {.overhead = Duration::Nanos(2'500), .min_k = 1024};
  const GemmCalibration g{.max_efficiency = 1, .k_half = 0, .tiles_half = 0, .mem_efficiency = 1};
  const DeviceRates r{.peak_flops = 1e15, .vector_flops = 1e13, .hbm_bytes = 1e15, .sms = 4};
  auto priced = [&](int64_t m, int64_t n, int64_t k) {
    const GemmShape s{.m = m, .n = n, .k = k};
    return GemmSeconds(s, 2.0, a, g, r) - std::max(s.flops().value() / 1e15, s.Elements() * 2 / 1e15);
  };
  EXPECT_NEAR(priced(256, 128, 4096), 3.5e-6, 1e-12);  // 2 tiles of 128 x 128 on 4 SMs, k 4096: split
  EXPECT_NEAR(priced(256, 128, 1024), 3.5e-6, 1e-12);  // k = min_k: split
  EXPECT_NEAR(priced(256, 128, 1016), 1e-6, 1e-12);    // k below min_k
  EXPECT_NEAR(priced(256, 256, 4096), 1e-6, 1e-12);    // 4 tiles fill the 4 SMs
  a.split_k.min_k = 0;
  EXPECT_NEAR(priced(256, 128, 4096), 1e-6, 1e-12);  // min_k 0: no split-K term
}

// The three LM-head GEMMs of GPT-2 XL (2 x 1,024 tokens, hidden 1,600, vocabulary 50,257) in the shared
// profiled H200 step (shared/data/profiles/h200/traces/gpt2-xl_amp_2x1024.kineto.json.gz): cuBLAS ran
// CUTLASS's sm75 align1 kernels (forward 3,398.5 us, weight gradient 2,391.8 us, input gradient
// 2,462.3 us) where the aligned GEMMs of the same step ran Hopper's nvjet kernels.
TEST(GemmAlignment, ShippedHopperConstantsPriceGpt2LmHeadAsTraced) {
  auto cal = io::LoadDefaultComputeCalibration();
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  auto cat = io::LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const hw::GpuSpec* h200 = *cat->hardware.FindGpu("h200");
  const ArchCalibration arch = ResolveArchCalibration(*h200, *cal);
  EXPECT_GT(arch.gemm_alignment.compute_exponent, 0.5);  // measured: data/calibration/gemm_alignment.yaml
  const DeviceRates r = DeviceRates::Of(*h200, hw::DType::kBf16);
  const GemmCalibration g = arch.Gemm(hw::DType::kBf16);
  const double fwd = GemmSeconds({.m = 2048, .n = 50257, .k = 1600}, 2.0, arch, g, r);
  const double wgrad = GemmSeconds({50257, 1600, 2048, 1, GemmLayout::kWeightGradient}, 2.0, arch, g, r);
  const double dgrad = GemmSeconds({.m = 2048, .n = 1600, .k = 50257}, 2.0, arch, g, r);
  EXPECT_NEAR((fwd + wgrad + dgrad) / 8.2526e-3, 1.0, 0.15);
  // The same head with the vocabulary padded to 50,304 (a multiple of 64, as nanoGPT pads it): >= 4x faster.
  const double padded = GemmSeconds({.m = 2048, .n = 50304, .k = 1600}, 2.0, arch, g, r);
  EXPECT_GT(fwd / padded, 4.0);
}

TEST(GemmAlignment, BadConstantsNameFileAndKey) {
  const auto cal = io::ParseComputeCalibration(
      "architectures:\n  hopper:\n    gemm_alignment: {compute_exponent: 9}\n", "c.yaml");
  ASSERT_FALSE(cal.ok());
  EXPECT_NE(cal.error().message.find("c.yaml:3"), std::string::npos) << cal.error().message;
  EXPECT_NE(cal.error().message.find("compute_exponent"), std::string::npos) << cal.error().message;
  const auto ok = io::ParseComputeCalibration(
      "architectures:\n  hopper:\n    gemm_alignment: {compute_exponent: 1, memory_exponent: 0.5, "
      "overhead_us: 2}\n",
      "c.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_DOUBLE_EQ(ok->archs[0].gemm_alignment.memory_exponent, 0.5);
  EXPECT_EQ(ok->archs[0].gemm_alignment.overhead, Duration::Nanos(2'000));
}

}  // namespace
}  // namespace dlsim::cost
