// A GPU's own measured GEMM curve (compute_calibration.h GpuGemmCalibration, data/calibration/
// gemm_measured.yaml): it replaces its architecture's GEMM constants for that GPU only, training calibrations
// still reach it, the shipped H200 curve prices the project's held-out H200 GEMMs (measured, never fitted
// on) better than the architecture's curve, `dlsim-fit gemm` recovers a curve that made its rows, and bad
// entries name file, line and key.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "dlsim/cost/kernel_op.h"
#include "dlsim/cost/kernel_time.h"
#include "dlsim/cost/training_calibration.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kernel_ops_csv.h"
#include "gemm_fit.h"

namespace dlsim::cost {
namespace {

constexpr char kYaml[] =
    "architectures:\n"
    "  hopper:\n"
    "    gemm_overhead_us: 5\n"
    "    gemm: {bf16: {max_efficiency: 0.7, k_half: 10, tiles_half: 0.2, mem_efficiency: 0.8}}\n"
    "    attention: {fwd_efficiency: 0.4, bwd_efficiency: 0.3, overhead_us: 10}\n"
    "gpus:\n"
    "  h200-sxm-141gb:\n"
    "    architecture: hopper\n"
    "    source: \"measured\"\n"
    "    gemm_overhead_us: 3\n"
    "    gemm:\n"
    "      bf16: {max_efficiency: 0.8, k_half: 100, tiles_half: 0.05, mem_efficiency: 0.6}\n"
    "      fp8: {max_efficiency: 0.75, k_half: 400, tiles_half: 0.1, mem_efficiency: 0.55}\n"
    "    gemm_alignment: {compute_exponent: 0.9, memory_exponent: 0.5, overhead_us: 2, k_half: 50}\n";

class GpuGemmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cat = io::LoadCatalogs({});
    ASSERT_TRUE(cat.ok()) << cat.error().message;
    cat_ = std::move(*cat);
    h200_ = *cat_.hardware.FindGpu("h200");
    h100_ = *cat_.hardware.FindGpu("h100");
  }
  catalog::Catalogs cat_;
  const hw::GpuSpec* h200_ = nullptr;
  const hw::GpuSpec* h100_ = nullptr;
};

TEST_F(GpuGemmTest, ReplacesItsArchitecturesGemmsForThatGpuOnly) {
  auto cal = io::ParseComputeCalibration(kYaml, "c.yaml");
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  const ArchCalibration h200 = ResolveArchCalibration(*h200_, *cal);
  EXPECT_DOUBLE_EQ(h200.Gemm(hw::DType::kBf16).max_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(h200.Gemm(hw::DType::kFp8).k_half, 400);
  EXPECT_EQ(h200.gemm_overhead, Duration::Nanos(3'000));
  EXPECT_DOUBLE_EQ(h200.gemm_alignment.k_half, 50);
  EXPECT_DOUBLE_EQ(h200.attention.fwd_efficiency, 0.4);  // the architecture's: only GEMMs are the GPU's
  EXPECT_NE(h200.source.find("measured"), std::string::npos) << h200.source;
  const ArchCalibration h100 = ResolveArchCalibration(*h100_, *cal);
  EXPECT_DOUBLE_EQ(h100.Gemm(hw::DType::kBf16).max_efficiency, 0.7);
  EXPECT_EQ(h100.gemm_overhead, Duration::Nanos(5'000));
  EXPECT_DOUBLE_EQ(h100.gemm_alignment.compute_exponent, 0);
}

TEST_F(GpuGemmTest, TrainingCalibrationsReachTheGpusOwnCurve) {
  auto cal = io::ParseComputeCalibration(kYaml, "c.yaml");
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  TrainingCalibration t;
  t.archs.push_back({.architecture = "hopper", .gemm_max_efficiency = 0.5, .fp8_gemm_max_efficiency = 0.45});
  const ArchCalibration h200 = ResolveArchCalibration(*h200_, t.Apply(*cal));
  EXPECT_DOUBLE_EQ(h200.Gemm(hw::DType::kBf16).max_efficiency, 0.5);
  EXPECT_DOUBLE_EQ(h200.Gemm(hw::DType::kBf16).k_half, 100);  // the rest of the curve stays measured
  EXPECT_DOUBLE_EQ(h200.Gemm(hw::DType::kFp8).max_efficiency, 0.45);
  t.archs[0].architecture = "ampere";
  EXPECT_DOUBLE_EQ(ResolveArchCalibration(*h200_, t.Apply(*cal)).Gemm(hw::DType::kBf16).max_efficiency, 0.8);
}

// MAPE of `arch` over the rows of `dt` in a `dlsim kernels` CSV.
double Mape(const std::vector<KernelOp>& ops, hw::DType dt, const ArchCalibration& arch,
            const hw::GpuSpec& gpu) {
  const DeviceRates r = DeviceRates::Of(gpu, dt);
  const double bytes = dt == hw::DType::kFp8 ? 1 : 2;
  double sum = 0;
  int n = 0;
  for (const KernelOp& op : ops) {
    if (op.kind != KernelOpKind::kGemm || op.dtype != dt || !op.measured_ms) continue;
    sum += std::fabs(GemmSeconds(op.gemm, bytes, arch, arch.Gemm(dt), r) / (*op.measured_ms * 1e-3) - 1);
    ++n;
  }
  return n == 0 ? INFINITY : 100 * sum / n;
}

// data/profiles/h200-heldout: 219 bf16 and 89 fp8 GEMMs at random shapes no constant is fitted on
// (data/calibration/gemm_measured.yaml names its fit rows). Measured through `dlsim kernels`: bf16 11.5% on
// 2026-12-05, 9.99% since 2026-12-06 (split-K and misaligned loads in series; the Hopper curve: 15.6%),
// fp8 8.2% -> 8.6%.
TEST_F(GpuGemmTest, ShippedH200CurvePricesHeldOutGemms) {
  auto ops = io::ReadKernelOpsCsv(std::string(DLSIM_DATA_DIR) + "/profiles/h200-heldout/kernels.csv");
  ASSERT_TRUE(ops.ok()) << ops.error().message;
  auto cal = io::LoadDefaultComputeCalibration();
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  const ArchCalibration measured = ResolveArchCalibration(*h200_, *cal);
  EXPECT_LT(Mape(*ops, hw::DType::kBf16, measured, *h200_), 10.5);
  EXPECT_LT(Mape(*ops, hw::DType::kFp8, measured, *h200_), 9.5);
  cal->gpu_gemms.clear();
  EXPECT_GT(Mape(*ops, hw::DType::kBf16, ResolveArchCalibration(*h200_, *cal), *h200_), 14.0);
}

// dlsim-fit gemm recovers a curve that made the rows: 60 bf16 GEMMs timed by a known H200 curve (a third
// misaligned, as the measured sets) and 20 fp8 ones; the fitted file, read back, prices them within a few
// percent.
TEST_F(GpuGemmTest, FitRecoversTheCurveThatMadeTheRows) {
  ArchCalibration truth;
  truth.gemm_overhead = Duration::Nanos(5'000);
  truth.gemm[hw::DType::kBf16] = {
      .max_efficiency = 0.75, .k_half = 120, .tiles_half = 0.08, .mem_efficiency = 0.6};
  truth.gemm[hw::DType::kFp8] = {
      .max_efficiency = 0.7, .k_half = 400, .tiles_half = 0.1, .mem_efficiency = 0.55};
  truth.gemm_alignment = {.compute_exponent = 0.9,
                          .memory_exponent = 0.5,
                          .overhead = Duration::Nanos(2'500),
                          .k_half = 50,
                          .tiles_half = 0.04,
                          .memory_overlap = 0.4};
  truth.split_k = {.overhead = Duration::Nanos(2'500), .min_k = 1024};
  const std::string path =
      (std::filesystem::temp_directory_path() / ("gpu_gemm_fit_" + std::to_string(::getpid()) + ".csv"))
          .string();
  std::vector<std::pair<GemmShape, hw::DType>> rows;
  {
    std::ofstream f(path);
    f << "op,dtype,m,n,k,measured_ms\n";
    int64_t s = 97;
    auto next = [&s](int64_t lo, int64_t hi) {  // a fixed pseudo-random size in [lo, hi)
      s = (s * 1103515245 + 12345) % 2147483648;
      return lo + s % (hi - lo);
    };
    for (int i = 0; i < 80; ++i) {
      const hw::DType dt = i < 60 ? hw::DType::kBf16 : hw::DType::kFp8;
      const bool odd = dt == hw::DType::kBf16 && i % 3 == 0;
      const GemmShape g{.m = next(16, 8192), .n = next(1, 512) * 16 + (odd ? 1 : 0), .k = next(1, 512) * 16};
      const double bytes = dt == hw::DType::kFp8 ? 1 : 2;
      const double t = GemmSeconds(g, bytes, truth, truth.Gemm(dt), DeviceRates::Of(*h200_, dt));
      f << "gemm," << hw::DTypeName(dt) << "," << g.m << "," << g.n << "," << g.k << "," << t * 1e3 << "\n";
      rows.push_back({g, dt});
    }
  }
  auto text = fit::FitGpuGemm({path}, "h200", "generated rows", "test");
  std::remove(path.c_str());
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text->find("source: \"" + path + " (generated rows)\""), std::string::npos) << *text;
  auto cal = io::ParseComputeCalibration(*text, "fitted.yaml");
  ASSERT_TRUE(cal.ok()) << cal.error().message;
  const ArchCalibration fitted = ResolveArchCalibration(*h200_, *cal);
  std::map<hw::DType, double> err;  // MAPE, percent, by dtype
  for (const auto& [g, dt] : rows) {
    const double bytes = dt == hw::DType::kFp8 ? 1 : 2;
    const DeviceRates r = DeviceRates::Of(*h200_, dt);
    const double ratio =
        GemmSeconds(g, bytes, fitted, fitted.Gemm(dt), r) / GemmSeconds(g, bytes, truth, truth.Gemm(dt), r);
    err[dt] += 100 * std::fabs(ratio - 1) / (dt == hw::DType::kFp8 ? 20 : 60);
    EXPECT_NEAR(ratio, 1.0, 0.2) << g.m << "x" << g.n << "x" << g.k << " " << hw::DTypeName(dt);
  }
  // Measured (GCC, Release): bf16 1.68%, fp8 2.56% on 2026-12-05; with the misaligned memory overlap and
  // split-K in the truth (2026-12-06) bf16 2.38%, fp8 3.28%, the worst row (fp8 3975x768x2800) 16.7%, after
  // six Nelder-Mead rounds per start (two left it at 3.5% / 3.6% with four rows past 15%). Nelder-Mead does
  // not converge all the way on noise-free rows; the measured sets' own scatter is 8-19%.
  EXPECT_LT(err[hw::DType::kBf16], 4.0);
  EXPECT_LT(err[hw::DType::kFp8], 4.0);
  std::printf("fit error: bf16 %.2f%%, fp8 %.2f%%\n", err[hw::DType::kBf16], err[hw::DType::kFp8]);
}

TEST(GpuGemmFile, BadEntriesNameFileLineAndKey) {
  auto missing = io::ParseComputeCalibration(
      "gpus:\n  h200-sxm-141gb:\n    source: x\n    gemm_overhead_us: 3\n    gemm: {bf16: {k_half: 1}}\n",
      "g.yaml");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("architecture"), std::string::npos) << missing.error().message;
  auto unknown = io::ParseComputeCalibration(
      "gpus:\n  h200-sxm-141gb:\n    architecture: hopper\n    source: x\n    gemm_overhead_us: 3\n"
      "    gemm: {bf16: {k_half: 1}}\n    gemm_overhed: 2\n",
      "g.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("g.yaml:7"), std::string::npos) << unknown.error().message;
  auto empty = io::ParseComputeCalibration(
      "gpus:\n  h200-sxm-141gb:\n    architecture: hopper\n    source: x\n    gemm_overhead_us: 3\n",
      "g.yaml");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("gemm"), std::string::npos) << empty.error().message;
  const std::string head =
      "gpus:\n  h200-sxm-141gb:\n    architecture: hopper\n    source: x\n    gemm_overhead_us: 3\n"
      "    gemm: {bf16: {k_half: 1}}\n";
  auto overlap = io::ParseComputeCalibration(head + "    gemm_alignment: {memory_overlap: 1.5}\n", "g.yaml");
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.error().message.find("g.yaml:7"), std::string::npos) << overlap.error().message;
  EXPECT_NE(overlap.error().message.find("memory_overlap"), std::string::npos) << overlap.error().message;
  auto split = io::ParseComputeCalibration(head + "    split_k: {overhead_us: 2, min_k: -1}\n", "g.yaml");
  ASSERT_FALSE(split.ok());
  EXPECT_NE(split.error().message.find("min_k"), std::string::npos) << split.error().message;
  auto good = io::ParseComputeCalibration(head + "    split_k: {overhead_us: 2, min_k: 1024}\n", "g.yaml");
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->gpu_gemms.at(0).split_k.min_k, 1024);
  EXPECT_EQ(good->gpu_gemms.at(0).split_k.overhead, Duration::Nanos(2'000));
}

}  // namespace
}  // namespace dlsim::cost
