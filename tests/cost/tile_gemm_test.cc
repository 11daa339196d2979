// Tests of the tile-level GEMM model, the template search and the fusions: closed-form wave
// quantisation, resource limits, alignment, split-K, fusion traffic and the "tile" registry entry.
#include "dlsim/cost/tile_gemm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/cost/gemm_fusion.h"
#include "dlsim/cost/tile_search.h"
#include "dlsim/hw/mig.h"
#include "profiles.h"

namespace dlsim::cost {
namespace {

using hw::DType;

hw::GpuSpec A100() { return fit::ProfiledGpu("ampere"); }

// A device with no memory limits in the way: tensor-core bound, latency hidden.
TileCalibration ComputeOnly() {
  TileCalibration c;
  c.mma_efficiency = 1.0;
  c.hbm_efficiency = 1.0;
  c.memory_latency = Duration::Zero();
  c.tile_overhead = Duration::Zero();
  c.launch = Duration::Nanos(1'000);
  return c;
}

// 256x128x64 tiles with 2 stages take 96 KiB of shared memory: one block per A100 SM (164 KiB).
TileConfig OneBlockPerSm() { return {.tb_m = 256, .tb_n = 128, .tb_k = 64, .stages = 2}; }

TEST(TileGemm, WaveQuantisationStepAtTileCountBoundary) {
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileCalibration cal = ComputeOnly();
  const TileConfig c = OneBlockPerSm();
  ASSERT_EQ(ResourcesOf(c, 2, dev).blocks_per_sm, 1);
  // 108 SMs: 12 x 9 = 108 tiles fill exactly one wave; one more tile row adds a second wave.
  const GemmShape one_wave{.m = 12 * 256, .n = 9 * 128, .k = 4096};
  const GemmShape two_waves{.m = 12 * 256 + 1, .n = 9 * 128, .k = 4096};
  const TileEstimate a = EstimateTile(one_wave, 2, c, dev, cal);
  const TileEstimate b = EstimateTile(two_waves, 2, c, dev, cal);
  ASSERT_TRUE(a.feasible && b.feasible) << a.reason << b.reason;
  EXPECT_EQ(a.tiles, 108);
  EXPECT_EQ(a.waves, 1);
  EXPECT_EQ(b.tiles, 117);
  EXPECT_EQ(b.waves, 2);
  // Closed form: one wave = k_iters x the larger of MMA and L2 load time of one tile per SM.
  const double per_sm = dev.peak_flops / dev.sms;
  const double mma = 2.0 * 256 * 128 * 64 / per_sm;
  const double load = (256 + 128) * 64 * 2.0 / (dev.l2_bytes / dev.sms);
  const double wave = 64 * std::max(mma, load);
  EXPECT_NEAR(a.seconds, 1e-6 + wave, 1e-9);
  EXPECT_NEAR(b.seconds, 1e-6 + 2 * wave, 1e-9);  // the step: a whole extra wave for 9 tiles
}

TEST(TileGemm, MigInstanceHasItsOwnWaves) {
  const hw::GpuSpec a100 = A100();
  hw::MigProfile p{.name = "3g.40gb", .compute_slices = 3, .memory_slices = 4, .sms = 42};
  const TileDevice mig = TileDevice::Of(hw::MigInstanceSpec(a100, p), DType::kFp16);
  EXPECT_EQ(mig.sms, 42);
  const TileEstimate e =
      EstimateTile({.m = 7 * 256, .n = 6 * 128 + 1, .k = 1024}, 2, OneBlockPerSm(), mig, ComputeOnly());
  EXPECT_EQ(e.tiles, 49);
  EXPECT_EQ(e.waves, 2);  // 49 tiles on 42 SMs
}

TEST(TileGemm, ResourcesAndLimits) {
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileResources r = ResourcesOf({.tb_m = 128, .tb_n = 128, .tb_k = 32, .stages = 3}, 2, dev);
  EXPECT_EQ(r.threads, 128);
  EXPECT_DOUBLE_EQ(r.smem_bytes, 3 * 256 * 32 * 2.0);
  // 64x64 warp tile: 128 accumulators + 64 fragment registers + 32 = 224.
  EXPECT_EQ(r.regs_per_thread, 224);
  EXPECT_EQ(r.blocks_per_sm, 2);  // 65536 / (224 x 128) = 2.28
  EXPECT_EQ(r.limit, "registers");
  // 6 stages of 256x128x64 fp16 = 288 KiB: over the A100's 163 KiB per block.
  const std::string why = Validate({.tb_m = 256, .tb_n = 128, .tb_k = 64, .stages = 6}, 2, dev);
  EXPECT_NE(why.find("shared memory"), std::string::npos) << why;
  EXPECT_NE(Validate({.tb_m = 128, .tb_n = 128, .warp_m = 128, .warp_n = 128}, 2, dev).find("registers"),
            std::string::npos);
  EXPECT_NE(Validate({.tb_m = 96, .tb_n = 128}, 2, dev).find("warp tile"), std::string::npos);
}

TEST(TileSearch, NeverPicksAConfigurationOverTheLimits) {
  for (const hw::GpuSpec& gpu : {A100(), fit::ProfiledGpu("hopper")}) {
    for (DType dt : {DType::kFp16, DType::kInt8}) {
      TileDevice dev = TileDevice::Of(gpu, dt);
      dev.smem_per_block = dev.smem_per_sm = 64 * 1024;  // a Turing-sized SM
      const TileCalibration cal;
      for (int64_t m : {1, 64, 1000, 4096, 16384}) {
        for (int64_t nk : {128, 1000, 4096, 12288}) {
          const TileChoice c = SearchTile({.m = m, .n = nk, .k = nk}, dt, dev, cal);
          ASSERT_TRUE(c.estimate.feasible) << c.estimate.reason;
          const TileResources r = ResourcesOf(c.config, hw::DTypeBytes(dt), dev);
          EXPECT_LE(r.smem_bytes, dev.smem_per_block) << c.config.Name();
          EXPECT_LE(r.regs_per_thread, 255) << c.config.Name();
          EXPECT_GE(r.blocks_per_sm, 1) << c.config.Name();
          EXPECT_GT(c.pruned, 0);  // the 64 KiB limit rejects deep pipelines of big tiles
        }
      }
    }
  }
}

TEST(TileSearch, SearchBeatsOrMatchesTheDefaultTemplateAndSplitsSmallOutputs) {
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileCalibration cal;
  for (GemmShape s : {GemmShape{.m = 8192, .n = 8192, .k = 8192}, GemmShape{.m = 16, .n = 4096, .k = 4096},
                      GemmShape{.m = 128, .n = 128, .k = 65536}}) {
    const TileChoice best = SearchTile(s, DType::kFp16, dev, cal);
    const TileEstimate fixed = EstimateTile(s, 2, DefaultTile(DType::kFp16, dev), dev, cal);
    EXPECT_LE(best.estimate.seconds, fixed.seconds);
  }
  // One 128x128 output tile and a long K: only split-K can use more than one SM.
  const TileChoice deep = SearchTile({.m = 128, .n = 128, .k = 65536}, DType::kFp16, dev, cal);
  EXPECT_GT(deep.config.split_k, 1);
}

TEST(TileSearch, MisalignedKIsPaddedOrRunsNarrowLoads) {
  EXPECT_EQ(AlignmentElements(4096, 2), 8);
  EXPECT_EQ(AlignmentElements(4100, 2), 4);
  EXPECT_EQ(AlignmentElements(4097, 2), 1);
  EXPECT_EQ(AlignmentElements(4104, 1), 8);
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileCalibration cal;
  const double aligned =
      SearchTile({.m = 8192, .n = 8192, .k = 4096}, DType::kFp16, dev, cal).estimate.seconds;
  const TileChoice odd = SearchTile({.m = 8192, .n = 8192, .k = 4097}, DType::kFp16, dev, cal);
  EXPECT_GT(odd.estimate.seconds, aligned);
  // Alignment-1 loads are 8x narrower: padding K to 4104 with a copy kernel is cheaper.
  EXPECT_TRUE(odd.padded);
}

TEST(GemmFusion, EpilogueFusionSavesTheOutputRoundTrips) {
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileCalibration cal;
  const GemmShape s{.m = 4096, .n = 4096, .k = 1024};
  const Epilogue ep{.bias = true, .activation = true, .elementwise_inputs = 1};
  const double fused = FusedEpilogueSeconds(s, DType::kFp16, ep, dev, cal);
  const double unfused = UnfusedEpilogueSeconds(s, DType::kFp16, ep, dev, cal);
  const double bare = SearchTile(s, DType::kFp16, dev, cal).estimate.seconds;
  EXPECT_GE(fused, bare);
  // Unfused: 3 extra kernels move (2 + 2 + 3) m n fp16 elements and pay 3 launches.
  const double extra =
      3 * cal.launch.ToSeconds() + (7.0 * 4096 * 4096 + 4096) * 2 / (dev.hbm_bytes * cal.hbm_efficiency);
  EXPECT_NEAR(unfused - bare, extra, 1e-9);
  EXPECT_LT(fused, unfused);
}

TEST(GemmFusion, BackToBackFusionNeedsTheIntermediateToFit) {
  const TileDevice dev = TileDevice::Of(A100(), DType::kFp16);
  const TileCalibration cal;
  // Bolt's case: many rows, narrow intermediate (e.g. 1x1 convolutions, 64 channels).
  const GemmShape s0{.m = 1 << 17, .n = 64, .k = 64}, s1{.m = 1 << 17, .n = 64, .k = 64};
  const TileEstimate fused = BackToBackSeconds(s0, s1, DType::kFp16, dev, cal);
  ASSERT_TRUE(fused.feasible) << fused.reason;
  EXPECT_LT(fused.seconds, UnfusedBackToBackSeconds(s0, s1, DType::kFp16, dev, cal));
  EXPECT_LT(fused.hbm_bytes, 2.0 * (1 << 17) * 64 * 2 * 2);  // the intermediate never reaches HBM
  // A 16384-wide intermediate fits neither registers nor shared memory.
  const TileEstimate wide = BackToBackSeconds({.m = 4096, .n = 16384, .k = 1024},
                                              {.m = 4096, .n = 1024, .k = 16384}, DType::kFp16, dev, cal);
  EXPECT_FALSE(wide.feasible);
  EXPECT_FALSE(BackToBackSeconds(s0, {.m = 5, .n = 64, .k = 64}, DType::kFp16, dev, cal).feasible);
}

}  // namespace
}  // namespace dlsim::cost
