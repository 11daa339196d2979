// Flash-LLM's sparse-weight GEMM cost (cost/sparse_gemm.h) against the dense GEMM of kernel_time.h.
#include "dlsim/cost/sparse_gemm.h"

#include <gtest/gtest.h>

#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::cost {
namespace {

struct Device {
  ArchCalibration arch;
  GemmCalibration g;
  DeviceRates r;
};

Device A100() {
  const auto cat = io::LoadCatalogs({}).value();
  const hw::GpuSpec& gpu = *cat.hardware.FindGpu("a100-sxm4-80gb").value();
  Device s;
  s.arch = ResolveArchCalibration(gpu, cat.compute);
  s.g = s.arch.Gemm(hw::DType::kFp16);
  s.r = DeviceRates::Of(gpu, hw::DType::kFp16);
  return s;
}

double Dense(const Device& s, const GemmShape& shape) { return GemmSeconds(shape, 2.0, s.arch, s.g, s.r); }
double Sparse(const Device& s, const GemmShape& shape, double p, SparseWeightFormat f = {}) {
  return SparseWeightGemmSeconds(shape, 2.0, p, f, s.arch, s.g, s.r);
}

TEST(SparseGemm, ZeroSparsityIsTheDenseGemmPlusTheExtraction) {
  const Device s = A100();
  SparseWeightFormat dense_like;
  dense_like.bytes_per_nonzero = 2.0;  // no index: the dense bytes
  for (GemmShape shape :
       {GemmShape{.m = 16, .n = 28672, .k = 7168}, GemmShape{.m = 8192, .n = 7168, .k = 7168},
        GemmShape{.m = 1, .n = 4096, .k = 4096, .batch = 3}}) {
    const double extraction = SparseExtractionSeconds(shape, 0.0, dense_like, s.arch, s.r);
    EXPECT_GT(extraction, 0.0);
    EXPECT_NEAR(Sparse(s, shape, 0.0, dense_like), Dense(s, shape) + extraction, 1e-12) << shape.m;
  }
  EXPECT_EQ(Sparse(s, {.m = 0, .n = 8, .k = 8}, 0.5), 0.0);
}

TEST(SparseGemm, DecodeGainsFromFewerBytesPrefillDoesNot) {
  const Device s = A100();
  // OPT-30B MLP up-projection for 16 decode tokens: memory-bound. At 80% Tiled-CSL moves 0.8 B
  // per weight against 2: at most 2.5x.
  const GemmShape decode{.m = 16, .n = 28672, .k = 7168};
  const double gain = Dense(s, decode) / Sparse(s, decode, 0.8);
  EXPECT_GT(gain, 2.0);
  EXPECT_LE(gain, 2.5);
  // Tiled-CSL moves the dense bytes at 50% (4 bytes x half the weights): the extraction is the
  // whole difference, so unstructured sparsity pays only above 50%.
  EXPECT_NEAR(Sparse(s, decode, 0.5),
              Dense(s, decode) + SparseExtractionSeconds(decode, 0.5, {}, s.arch, s.r), 1e-12);
  // A 4096-token prefill is compute-bound: the dense FLOPs are done anyway, plus the extraction.
  const GemmShape prefill{.m = 4096, .n = 28672, .k = 7168};
  EXPECT_NEAR(Sparse(s, prefill, 0.8),
              Dense(s, prefill) + SparseExtractionSeconds(prefill, 0.8, {}, s.arch, s.r), 1e-9);
  EXPECT_GE(Sparse(s, prefill, 0.8), Dense(s, prefill));
}

}  // namespace
}  // namespace dlsim::cost
