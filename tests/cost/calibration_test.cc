// Tests of the compute calibration: YAML loading, errors, per-dtype lookup and fallbacks.
#include <gtest/gtest.h>

#include "dlsim/cost/compute_calibration.h"
#include "dlsim/io/calibration_loader.h"
#include "profiles.h"

namespace dlsim::cost {
namespace {

using hw::DType;

TEST(ComputeCalibrationYaml, EmbeddedFileHasBothArchitectures) {
  auto cal = io::LoadDefaultComputeCalibration();
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  for (const char* arch : {"ampere", "hopper"}) {
    const ArchCalibration* a = cal->FindArchOrNull(arch);
    ASSERT_NE(a, nullptr) << arch;
    const GemmCalibration g = a->Gemm(DType::kBf16);
    EXPECT_GT(g.max_efficiency, 0.6) << arch;
    EXPECT_LT(g.max_efficiency, 0.95) << arch;
    EXPECT_GT(a->memory.efficiency, 0.2);
    EXPECT_GT(a->attention.fwd_efficiency, 0.2);
  }
  const ArchCalibration* h = cal->FindArchOrNull("hopper");
  EXPECT_LT(h->Gemm(DType::kFp8).max_efficiency, h->Gemm(DType::kBf16).max_efficiency);
}

TEST(ComputeCalibrationYaml, ParsesValuesAndRejectsBadInput) {
  auto ok = io::ParseComputeCalibration(
      "architectures:\n  ampere:\n    tile_m: 64\n    gemm_overhead_us: 3\n"
      "    gemm:\n      bf16: {max_efficiency: 0.7, k_half: 10, tiles_half: 0.3, mem_efficiency: 0.9}\n"
      "    memory: {efficiency: 0.5, overhead_us: 2}\n",
      "t.yaml");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  const ArchCalibration& a = ok->archs.at(0);
  EXPECT_EQ(a.tile_m, 64);
  EXPECT_EQ(a.gemm_overhead, Micros(3));
  EXPECT_DOUBLE_EQ(a.Gemm(DType::kFp16).max_efficiency, 0.7);  // fp16 falls back to bf16
  EXPECT_DOUBLE_EQ(a.memory.efficiency, 0.5);

  auto bad_range = io::ParseComputeCalibration(
      "architectures:\n  ampere:\n    gemm:\n      bf16: {max_efficiency: 1.5}\n", "t.yaml");
  ASSERT_FALSE(bad_range.ok());
  EXPECT_NE(bad_range.error().message.find("t.yaml:4"), std::string::npos) << bad_range.error().message;

  auto bad_key = io::ParseComputeCalibration("architectures:\n  ampere:\n    tile_mm: 64\n", "t.yaml");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.error().message.find("tile_m"), std::string::npos) << bad_key.error().message;
}

TEST(ComputeCalibration, UncalibratedArchitectureUsesMeanOfCalibrated) {
  ComputeCalibration cal;
  ArchCalibration a, b;
  a.architecture = "ampere";
  a.gemm[DType::kBf16] = {0.6, 100, 0.2, 0.8};
  b.architecture = "hopper";
  b.gemm[DType::kBf16] = {0.8, 50, 0.4, 0.9};
  cal.archs = {a, b};
  hw::GpuSpec gpu = fit::ProfiledGpu("hopper");
  gpu.architecture = "volta";
  const ArchCalibration d = ResolveArchCalibration(gpu, cal);
  EXPECT_EQ(d.architecture, "volta");
  EXPECT_DOUBLE_EQ(d.Gemm(DType::kBf16).max_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(d.Gemm(DType::kBf16).k_half, 75);
  EXPECT_LT(d.Gemm(DType::kFp8).max_efficiency, 0.7);
  EXPECT_EQ(ResolveArchCalibration(fit::ProfiledGpu("hopper"), cal).Gemm(DType::kBf16).max_efficiency, 0.8);
  // Nothing loaded: built-in defaults, still usable.
  EXPECT_GT(DefaultArchCalibration(gpu, ComputeCalibration{}).Gemm(DType::kBf16).max_efficiency, 0);
  // An FP8 curve calibrated on FP8 hardware transfers as it is (the mean of those that have one), not mixed
  // with the curve Gemm() would synthesise for an architecture without FP8 (0.85 x its 16-bit one).
  cal.archs[1].gemm[DType::kFp8] = {0.47, 60, 0.3, 0.85};
  const ArchCalibration f = ResolveArchCalibration(gpu, cal);
  EXPECT_DOUBLE_EQ(f.Gemm(DType::kFp8).max_efficiency, 0.47);
  EXPECT_DOUBLE_EQ(f.Gemm(DType::kFp8).k_half, 60);
  EXPECT_DOUBLE_EQ(f.Gemm(DType::kBf16).max_efficiency, 0.7);  // the 16-bit mean is unchanged
}

}  // namespace
}  // namespace dlsim::cost
