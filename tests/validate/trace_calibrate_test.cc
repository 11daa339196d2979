// Calibrating from profiled steps: the operator rules (categories, the GEMM / attention / elementwise shapes
// and bytes read off the recorded inputs, in closed form), the host timing between layers, constants that
// made synthetic measured times recovered by the fit, and the real trimmed H200 trace calibrated end to end.
#include "dlsim/validate/trace_calibrate.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "dlsim/cost/compute_model.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/simulate.h"

namespace dlsim::validate {
namespace {

TracedOp Op(const std::string& name, std::vector<std::vector<int64_t>> dims, std::vector<std::string> types,
            double gpu_us = 100) {
  TracedOp op;
  op.name = name;
  op.dims = std::move(dims);
  op.types = std::move(types);
  op.gpu_us = gpu_us;
  op.kernels = 1;
  return op;
}

TEST(TraceOps, CategoriesFollowPyTorchsOperatorNames) {
  EXPECT_EQ(Categorize(Op("aten::mm", {}, {})), TraceCategory::kGemm);
  EXPECT_EQ(Categorize(Op("aten::_cudnn_attention_backward", {}, {})), TraceCategory::kAttentionBackward);
  EXPECT_EQ(Categorize(Op("aten::_flash_attention_forward", {}, {})), TraceCategory::kAttentionForward);
  EXPECT_EQ(Categorize(Op("aten::_fused_adamw_", {}, {})), TraceCategory::kOptimizer);
  EXPECT_EQ(Categorize(Op("aten::_fused_rms_norm_backward", {}, {})), TraceCategory::kNorm);
  EXPECT_EQ(Categorize(Op("aten::_log_softmax", {}, {})), TraceCategory::kLoss);
  EXPECT_EQ(Categorize(Op("aten::mul", {}, {})), TraceCategory::kElementwise);
  EXPECT_EQ(Categorize(Op("aten::embedding_dense_backward", {}, {})), TraceCategory::kOther);
  TracedOp nccl = Op("record_param_comms", {}, {});
  nccl.first_kernel = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL";
  EXPECT_EQ(Categorize(nccl), TraceCategory::kCommunication);
}

TEST(TraceOps, ShapesAndBytesInClosedForm) {
  auto addmm = ToKernelOp(
      Op("aten::addmm", {{8192}, {4096, 2048}, {2048, 8192}}, {"c10::BFloat16", "c10::BFloat16"}), true);
  ASSERT_TRUE(addmm);
  EXPECT_EQ(addmm->gemm.m, 4096);
  EXPECT_EQ(addmm->gemm.n, 8192);
  EXPECT_EQ(addmm->gemm.k, 2048);
  EXPECT_EQ(addmm->dtype, hw::DType::kBf16);
  auto bmm = ToKernelOp(Op("aten::bmm", {{12, 64, 32}, {12, 32, 16}}, {"c10::Half", "c10::Half"}), true);
  ASSERT_TRUE(bmm);
  EXPECT_EQ(bmm->gemm.batch, 12);
  EXPECT_EQ(bmm->gemm.m, 64);
  EXPECT_FALSE(ToKernelOp(Op("aten::mm", {{4, 5}, {6, 7}}, {"float", "float"}), true));  // k mismatch
  // FlashAttention records [batch, seq, heads, head_dim]; the backward takes the output gradient first.
  auto flash = ToKernelOp(
      Op("aten::_flash_attention_backward", {{2, 1024, 32, 128}, {2, 1024, 32, 128}, {2, 1024, 8, 128}},
         {"c10::BFloat16", "c10::BFloat16", "c10::BFloat16"}),
      false);
  ASSERT_TRUE(flash);
  EXPECT_EQ(flash->kind, cost::KernelOpKind::kAttentionBackward);
  EXPECT_EQ(flash->attention.heads, 32);
  EXPECT_EQ(flash->attention.kv_heads, 8);
  EXPECT_EQ(flash->attention.seq_q, 1024);
  EXPECT_FALSE(flash->attention.causal);
  EXPECT_EQ(flash->backend, "flash");
  // A cast of 1000 fp32 values to bf16 (ScalarType 15) reads 4000 bytes and writes 2000.
  TracedOp cast = Op("aten::_to_copy", {{10, 100}, {}}, {"float", "Scalar"});
  cast.concrete = {"", "15"};
  EXPECT_DOUBLE_EQ(ToKernelOp(cast, true)->bytes.value(), 6000);
  // copy_ writes into its first argument: 1000 bf16 + 1000 fp32.
  EXPECT_DOUBLE_EQ(
      ToKernelOp(Op("aten::copy_", {{1000}, {1000}}, {"c10::BFloat16", "float"}), true)->bytes.value(), 6000);
  // A binary op reads both and writes the larger: 3 x 2000 bytes.
  EXPECT_DOUBLE_EQ(
      ToKernelOp(Op("aten::mul", {{1000}, {1000}}, {"c10::BFloat16", "c10::BFloat16"}), true)->bytes.value(),
      6000);
}

// Operators recorded with fewer types than inputs are not priced (an attention backward's query type is its
// second; a _to_copy without types has no byte size to copy into), and nothing reads past the lists.
TEST(TraceOps, ShortTypeListsAreNotPriced) {
  EXPECT_FALSE(ToKernelOp(Op("aten::_cudnn_attention_backward",
                             {{2, 32, 128, 64}, {2, 32, 128, 64}, {2, 8, 128, 64}}, {"c10::BFloat16"}),
                          true));
  TracedOp copy = Op("aten::_to_copy", {{8, 4}}, {});
  copy.concrete = {"", "99"};
  EXPECT_FALSE(ToKernelOp(copy, true));
}

TEST(TraceOps, HostTimeIsTheGapBetweenLayersAndBlockedGapsAreLeftOut) {
  ProfiledStep s;
  for (int i = 0; i < 4; ++i) s.ops.push_back(Op("aten::_cudnn_attention_forward", {}, {}));
  for (int i = 0; i < 4; ++i) s.ops[i].cpu_start_us = 1000.0 * i;
  for (double t : {5000.0, 7000.0, 9000.0, 11000.0}) {
    s.ops.push_back(Op("aten::_cudnn_attention_backward", {}, {}));
    s.ops.back().cpu_start_us = t;
  }
  for (int i = 0; i < 40; ++i) s.launches.push_back({100.0 + 250 * i, 5});
  HostTiming h = MeasureHost(s);
  EXPECT_EQ(h.layers, 4);
  EXPECT_FALSE(h.recompute);
  ASSERT_TRUE(h.fwd_layer_us && h.bwd_layer_us);
  EXPECT_DOUBLE_EQ(*h.fwd_layer_us, 1000);
  EXPECT_DOUBLE_EQ(*h.bwd_layer_us, 2000);
  // A launch that waited 900 us for a queue slot in the gap 9000-11000 leaves two clean backward gaps.
  s.launches.push_back({9500, 900});
  std::sort(s.launches.begin(), s.launches.end(), [](auto& a, auto& b) { return a.start_us < b.start_us; });
  h = MeasureHost(s);
  EXPECT_EQ(h.bwd_gaps, 2);
}

catalog::Catalogs Shipped() {
  auto c = io::LoadCatalogs({});
  EXPECT_TRUE(c.ok());
  return *c;
}

TEST(TraceCalibrate, RecoversTheGemmEfficiencyThatMadeTheTimes) {
  const catalog::Catalogs cat = Shipped();
  const hw::GpuSpec& gpu = **cat.hardware.FindGpu("h200");
  cost::TrainingCalibration truth;
  cost::ArchTrainingCalibration a;
  a.architecture = gpu.architecture;
  a.gemm_max_efficiency = 0.5;
  truth.archs.push_back(a);
  cost::ComputeModelRegistry reg("compute-model");
  cost::RegisterComputeModels(reg);
  auto created = reg.Create("roofline", gpu, cost::Overlay(cat.training, truth).Apply(cat.compute));
  ASSERT_TRUE(created.ok());
  const cost::ComputeModel& model = **created;
  ProfiledStep s;
  s.file = "synthetic";
  for (int64_t m : {512, 2048, 8192}) {
    TracedOp op = Op("aten::mm", {{m, 4096}, {4096, 14336}}, {"c10::BFloat16", "c10::BFloat16"});
    op.gpu_us = cost::PriceKernelOp(model, *ToKernelOp(op, true)).ToSeconds() * 1e6;
    s.ops.push_back(op);
  }
  auto r = CalibrateFromTraces({s}, cat, gpu);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->fits.size(), 1u);
  EXPECT_EQ(r->fits[0].constant, "gemm");
  EXPECT_NEAR(r->fits[0].value, 0.5, 0.005);
  EXPECT_LT(r->fits[0].mape_fitted, 1.0);
  EXPECT_FALSE(r->host_us.has_value());  // no layers traced
  EXPECT_NEAR(
      *r->calibration.ArchValue(gpu.architecture, &cost::ArchTrainingCalibration::gemm_max_efficiency), 0.5,
      0.005);
}

// Each trace counts once: the fit makes the geometric mean of the traces' (dlsim / measured) totals 1, so a
// trace twenty times as long (its calls repeated) does not outvote a short one, and the fitted value lies
// between the two traces' own fits.
TEST(TraceCalibrate, EachTraceCountsOnceWhateverItsLength) {
  const catalog::Catalogs cat = Shipped();
  const hw::GpuSpec& gpu = **cat.hardware.FindGpu("h200");
  cost::ComputeModelRegistry reg("compute-model");
  cost::RegisterComputeModels(reg);
  auto created = reg.Create("roofline", gpu, cat.training.Apply(cat.compute));
  ASSERT_TRUE(created.ok());
  // Trace `a` runs at the shipped speed, trace `b` 30% slower; `repeat` copies of each call.
  auto trace = [&](double slower, int repeat) {
    ProfiledStep s;
    s.file = slower > 1 ? "b" : "a";
    for (int64_t m : {1024, 4096, 16384}) {
      TracedOp op = Op("aten::mm", {{m, 2048}, {2048, 8192}}, {"c10::BFloat16", "c10::BFloat16"});
      op.gpu_us = slower * cost::PriceKernelOp(**created, *ToKernelOp(op, true)).ToSeconds() * 1e6;
      for (int i = 0; i < repeat; ++i) s.ops.push_back(op);
    }
    return s;
  };
  auto fit = [&](std::vector<ProfiledStep> steps) {
    auto r = CalibrateFromTraces(steps, cat, gpu);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->fits.at(0).value : 0.0;
  };
  const double both = fit({trace(1, 1), trace(1.3, 1)});
  EXPECT_NEAR(fit({trace(1, 20), trace(1.3, 1)}), both, 1e-3 * both);
  EXPECT_NEAR(fit({trace(1, 1), trace(1.3, 20)}), both, 1e-3 * both);
  const double fast = fit({trace(1, 1)}), slow = fit({trace(1.3, 1)});
  EXPECT_LT(slow, both);
  EXPECT_LT(both, fast);
  EXPECT_GT(fast / slow, 1.2);  // the traces' own fits are far apart: the test can tell them from `both`
}

TEST(TraceCalibrate, TheRealTraceCalibratesEveryFamilyToItsMeasuredTime) {
  const catalog::Catalogs cat = Shipped();
  auto s = io::ReadKinetoTrace(std::string(DLSIM_TEST_DATA_DIR) +
                               "/traces/llama-3.2-1b_amp_2x2048.trimmed.json.gz");
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto gpu = TraceGpu({*s}, cat.hardware, "");
  ASSERT_TRUE(gpu.ok()) << gpu.error().message;
  EXPECT_EQ((*gpu)->name, "h200-sxm-141gb");
  auto r = CalibrateFromTraces({*s}, cat, **gpu);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->fits.size(), 3u);  // attention cudnn, elementwise, gemm
  for (const auto& f : r->fits) {
    EXPECT_NEAR(f.fitted_ms, f.measured_ms, 1e-3 * f.measured_ms) << f.constant;
    EXPECT_FALSE(f.at_bound) << f.constant;
  }
  EXPECT_EQ(r->fits[0].constant, "attention cudnn");
  EXPECT_EQ(r->traces[0].host.layers, 16);
  ASSERT_TRUE(r->host_us.has_value());
  EXPECT_GT(*r->host_us, 500);  // the 1B autocast step issues a layer in about 1 ms under the profiler
  EXPECT_LT(*r->host_us, 2000);
}

// The elementwise rate fitted on eager kernels does not reach the fused optimizer step: the calibration
// writes no optimizer rate, so a pure-bf16 eager step's optimizer keeps its stack's measured rate while its
// memory-bound kernels change.
TEST(TraceCalibrate, TheOptimizerKeepsItsShippedRate) {
  catalog::Catalogs cat = Shipped();
  auto s = io::ReadKinetoTrace(std::string(DLSIM_TEST_DATA_DIR) +
                               "/traces/llama-3.2-1b_amp_2x2048.trimmed.json.gz");
  ASSERT_TRUE(s.ok()) << s.error().message;
  auto r = CalibrateFromTraces({*s}, cat, **TraceGpu({*s}, cat.hardware, ""));
  ASSERT_TRUE(r.ok()) << r.error().message;
  const auto& fitted = r->calibration.archs.at(0);
  ASSERT_TRUE(fitted.elementwise_efficiency.has_value());
  EXPECT_FALSE(fitted.optimizer_efficiency.has_value());
  auto step = [&](const catalog::Catalogs& c) {
    auto o = io::ParseTrainScenario(
        "model: {name: llama3-8b}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n"
        "training: {stack: pytorch-eager-bf16, seq_len: 2048, global_batch: 1}\n",
        "s.yaml", c.hardware, c.models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    return train::Simulate(*o, c, nullptr)->breakdown;
  };
  const train::Breakdown before = step(cat);
  cat.training = cost::Overlay(cat.training, r->calibration);
  const train::Breakdown after = step(cat);
  EXPECT_EQ(after.optimizer_s, before.optimizer_s);
  // The trimmed trace's fitted elementwise rate (0.587 of HBM bandwidth) replaces the stack's (0.5452): the
  // memory-bound kernels 7% faster, the optimizer unchanged.
  EXPECT_LT(after.memory_s, 0.96 * before.memory_s);
}

TEST(TraceCalibrate, AnUnknownDeviceAsksForTheGpu) {
  ProfiledStep s;
  s.file = "x.json";
  s.device = "NVIDIA Quantum Z9";
  auto g = TraceGpu({s}, Shipped().hardware, "");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("--gpu"), std::string::npos) << g.error().message;
  ProfiledStep other = s;
  other.device = "NVIDIA H200";
  EXPECT_FALSE(TraceGpu({other, s}, Shipped().hardware, "").ok());
  EXPECT_TRUE(TraceGpu({s}, Shipped().hardware, "h100").ok());
}

}  // namespace
}  // namespace dlsim::validate
