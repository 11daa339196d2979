// 4-bit weights (model.weight_dtype: int4; serve/weight_quant.h): the W4A16 GEMM against Marlin's published
// A10 timings (data/profiles/published/marlin/marlin_a10.csv, copied into the table below), the memory plan,
// and the scenario's checks.
#include "dlsim/serve/weight_quant.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "dlsim/cost/compute_model.h"
#include "dlsim/serve/offload.h"
#include "dlsim/serve/setup.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

struct MarlinRow {
  std::string shape;
  int64_t batch;
  double int4_ms, speedup;  // measured: the int4 GEMMs' time, and fp16's over it
};

// marlin_a10.csv (IST-DASLab/marlin_artifact result/marlin.csv, NVIDIA A10).
const std::vector<MarlinRow> kMarlinA10 = {
    {"ideal", 1, 1.21, 3.87},     {"ideal", 2, 1.21, 3.88},       {"ideal", 4, 1.21, 3.89},
    {"ideal", 8, 1.21, 3.89},     {"ideal", 16, 1.22, 3.90},      {"ideal", 32, 1.23, 3.83},
    {"ideal", 64, 1.54, 3.08},    {"ideal", 128, 3.04, 1.55},     {"ideal", 256, 6.68, 1.64},
    {"Llama7B", 16, 0.21, 3.61},  {"Llama13B", 16, 0.30, 3.87},   {"Llama33B", 16, 0.50, 3.87},
    {"Llama65B", 16, 0.75, 3.86}, {"Falcon180B", 16, 2.05, 3.77},
};

// The (k, n) of each shape's GEMMs (marlin_bench.py MODELS; 72 SMs).
std::vector<std::pair<int64_t, int64_t>> Layers(const std::string& shape) {
  auto llama = [](int64_t h, int64_t f) {
    return std::vector<std::pair<int64_t, int64_t>>{{h, 3 * h}, {h, h}, {h, 2 * f}, {f, h}};
  };
  if (shape == "ideal") return {{4 * 256 * 72, 256 * 72}};
  if (shape == "Llama7B") return llama(4096, 10752);
  if (shape == "Llama13B") return llama(5120, 13568);
  if (shape == "Llama33B") return llama(6656, 17664);
  if (shape == "Llama65B") return llama(8192, 21760);
  return {{14848, 14848 * 5 + 1024}, {14848 * 5, 14848}};  // Falcon180B
}

struct Priced {
  double fp16_ms = 0, int4_ms = 0;
};

Priced Price(const cost::ComputeModel& cm, const MarlinRow& r) {
  Priced p;
  for (const auto& [k, n] : Layers(r.shape)) {
    const cost::GemmShape g{.m = r.batch, .n = n, .k = k};
    p.fp16_ms += cm.Gemm(g, hw::DType::kFp16).ToSeconds() * 1e3;
    p.int4_ms +=
        cm.SparseWeightGemm(g, hw::DType::kFp16, 0.0, QuantizedWeightFormat(WeightQuant::kInt4)).ToSeconds() *
        1e3;
  }
  return p;
}

TEST(WeightQuant, Int4StoresFourPointOneTwoFiveBitsAWeight) {
  EXPECT_DOUBLE_EQ(LinearWeightBytes(hw::DType::kFp16, WeightQuant::kInt4), 0.515625);
  EXPECT_DOUBLE_EQ(LinearWeightBytes(hw::DType::kFp8, WeightQuant::kNone), 1.0);
  EXPECT_TRUE(std::isinf(QuantizedWeightFormat(WeightQuant::kInt4).extract_nonzeros_per_sm_s));
  EXPECT_DOUBLE_EQ(LinearWeightBytes(hw::DType::kFp16, WeightQuant::kInt8), 1.015625);
  EXPECT_DOUBLE_EQ(QuantizedWeightFormat(WeightQuant::kInt8).bytes_per_nonzero, 1.015625);
  EXPECT_STREQ(WeightQuantName(WeightQuant::kInt8), "int8");
  EXPECT_STREQ(WeightQuantName(WeightQuant::kNone), "");
}

// Mechanism: Marlin's speed-up is the weight bytes' (2 / 0.516 = 3.9x) while the GEMM is memory-bound and
// falls to the compute-bound ratio past it. dlsim's int4 / fp16 ratio is within 5% of the measured one at
// batch 1-32 and 128 and on the five models' layers at 16, 7% low at 64 (dlsim's A10 GEMM rate, fitted on
// A100s, is 72% of the 113 TFLOP/s Marlin sustains there). Findings this pins: (1) dlsim prices both kernels'
// bytes on the A10 about 1.3x slower than measured (the runs disabled ECC, which the artifact's README says
// costs 10-15% of the bandwidth; our Ampere memory efficiency is fitted on A100s), so the absolute int4 times
// are as far off as the fp16 ones; (2) at batch 256 the measured fp16 GEMM runs at 51% of the A10's fp16 peak
// while Marlin's reaches 83%, so the measured 1.64x rests on a weak fp16 kernel, which dlsim (one fp16 rate
// for both) does not have.
TEST(WeightQuant, MarlinA10SpeedupsAndTimes) {
  const hw::GpuSpec& a10 = *Env().catalogs.hardware.FindGpu("a10-24gb").value();
  auto cm = cost::MakeRooflineComputeModel(a10, Env().catalogs.compute);
  for (const MarlinRow& r : kMarlinA10) {
    const Priced p = Price(*cm, r);
    const double ours = p.fp16_ms / p.int4_ms, fp16_measured = r.int4_ms * r.speedup;
    SCOPED_TRACE(r.shape + " batch " + std::to_string(r.batch));
    if (r.batch <= 128) {
      EXPECT_NEAR(ours, r.speedup, (r.batch == 64 ? 0.08 : 0.05) * r.speedup);
      EXPECT_GT(p.int4_ms, 1.15 * r.int4_ms);  // finding (1)
      EXPECT_LT(p.int4_ms, 1.45 * r.int4_ms);
      EXPECT_GT(p.fp16_ms, 1.0 * fp16_measured);
    } else {
      EXPECT_LT(ours, 0.75 * r.speedup);  // finding (2)
    }
  }
}

// Finding this pins (docs/validation.md, "serving-vllm-public-latency"): humming's H100 table
// (inclusionAI/humming PR #2: 8192 x 8192, fp16 activations, channelwise 4-bit weights, TFLOP/s at m = 1, 2,
// 4; copied into data/profiles/published/marlin/marlin_h100_humming.csv) has Marlin's W4A16 at 0.46 of
// torch's fp16 GEMM time, where dlsim's rule (the packed bytes at the dense kernel's bandwidth) gives under
// 0.40 on Hopper; the end-to-end int4 rows of vLLM PR #23197 on an H100 side with dlsim at batch 1, so
// nothing is changed for it.
TEST(WeightQuant, MarlinH100KernelTableIsSlowerThanTheRule) {
  const hw::GpuSpec& h100 = *Env().catalogs.hardware.FindGpu("h100-sxm5-80gb").value();
  auto cm = cost::MakeRooflineComputeModel(h100, Env().catalogs.compute);
  const cost::SparseWeightFormat channelwise{.bytes_per_nonzero = 0.5, .extract_nonzeros_per_sm_s = INFINITY};
  const cost::SparseWeightFormat channelwise8{.bytes_per_nonzero = 1.0,
                                              .extract_nonzeros_per_sm_s = INFINITY};
  const struct {
    int64_t m;
    double fp16_tflops, int4_tflops, int8_tflops;
  } kHumming[] = {{1, 2.30, 4.98, 3.46}, {2, 4.63, 10.02, 6.87}, {4, 9.26, 19.85, 13.75}};
  for (const auto& r : kHumming) {
    const cost::GemmShape g{.m = r.m, .n = 8192, .k = 8192};
    const double fp16 = cm->Gemm(g, hw::DType::kFp16).ToSeconds();
    const double ours4 = cm->SparseWeightGemm(g, hw::DType::kFp16, 0.0, channelwise).ToSeconds() / fp16;
    const double ours8 = cm->SparseWeightGemm(g, hw::DType::kFp16, 0.0, channelwise8).ToSeconds() / fp16;
    EXPECT_NEAR(r.fp16_tflops / r.int4_tflops, 0.46, 0.01) << r.m;
    EXPECT_LT(ours4, 0.40) << r.m;
    EXPECT_GT(ours4, 0.25) << r.m;  // the bytes' 0.25 plus the launch
    // W8A16: measured 0.66-0.67 of fp16's time; the rule's 0.5 plus the launch sits below it.
    EXPECT_NEAR(r.fp16_tflops / r.int8_tflops, 0.665, 0.01) << r.m;
    EXPECT_LT(ours8, 0.62) << r.m;
    EXPECT_GT(ours8, 0.50) << r.m;
  }
}

TEST(WeightQuant, Int4ServingShrinksTheLayersAndSpeedsUpDecode) {
  ServeOptions dense = BaseOptions("llama2-7b", "a100-sxm4-80gb"), int4 = dense;
  int4.weight_quant = WeightQuant::kInt4;
  auto dense_cost = MakeCostModel(dense, *Env().env).value(),
       int4_cost = MakeCostModel(int4, *Env().env).value();
  EXPECT_FALSE(int4_cost->profiled());  // the measured fp16 profile does not apply
  const MemoryPlan a = PlanMemory(dense, *dense_cost).value(), b = PlanMemory(int4, *int4_cost).value();
  const double layers = dense.model.layers * dense.model.LayerParameters();
  EXPECT_NEAR(b.weights.ToBytes(), a.weights.ToBytes() - layers * (2.0 - 0.515625), 1.0);
  EXPECT_GT(b.kv_blocks, a.kv_blocks);
  const BatchShape decode{.decode_requests = 1, .decode_context = 512, .logits = 1};
  const double speedup =
      dense_cost->Time(decode).Total(32).ToSeconds() / int4_cost->Time(decode).Total(32).ToSeconds();
  EXPECT_GT(speedup, 2.0);  // the layers' bytes fall 3.9x; the LM head, the KV and the launches stay
  EXPECT_LT(speedup, 3.9);
}

// 8-bit weights: the layers at 1.016 bytes a weight, so between fp16 and int4 in memory and in decode time.
TEST(WeightQuant, Int8ServingSitsBetweenFp16AndInt4) {
  ServeOptions dense = BaseOptions("llama2-7b", "a100-sxm4-80gb"), int8 = dense, int4 = dense;
  int8.weight_quant = WeightQuant::kInt8;
  int4.weight_quant = WeightQuant::kInt4;
  auto cost_of = [](const ServeOptions& o) { return MakeCostModel(o, *Env().env).value(); };
  auto dense_cost = cost_of(dense), int8_cost = cost_of(int8), int4_cost = cost_of(int4);
  EXPECT_FALSE(int8_cost->profiled());
  const MemoryPlan a = PlanMemory(dense, *dense_cost).value(), b = PlanMemory(int8, *int8_cost).value();
  const double layers = dense.model.layers * dense.model.LayerParameters();
  EXPECT_NEAR(b.weights.ToBytes(), a.weights.ToBytes() - layers * (2.0 - 1.015625), 1.0);
  const BatchShape decode{.decode_requests = 1, .decode_context = 512, .logits = 1};
  auto step = [&](const auto& c) { return c->Time(decode).Total(32).ToSeconds(); };
  EXPECT_LT(step(int8_cost), 0.8 * step(dense_cost));  // the layers' bytes fall 2x
  EXPECT_GT(step(int8_cost), 1.2 * step(int4_cost));
}

}  // namespace
}  // namespace dlsim::serve
