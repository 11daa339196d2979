// Eager memory-bound kernels in serving (ServeOptions::kernels, `kernels: eager`): a layer's fused norms,
// rotary embedding, activation and residual adds are replaced by model::EagerLayerOps' forward kernels,
// each priced by the compute model; the GEMMs and attention do not change (closed form), and the scenario
// refuses eager kernels for a model EagerLayerOps does not describe.
#include <gtest/gtest.h>

#include "dlsim/model/layer_graph.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

// Llama 3.1 8B on the H200, 8,192 tokens in one prompt: the eager layer minus the fused one is the eager
// kernels' time minus the fused memory-bound lines', layer by layer.
TEST(ServeEagerKernels, PrefillChangesByTheMemoryBoundKernelsOnly) {
  ServeOptions o = BaseOptions("llama3.1-8b", "h200-sxm-141gb");
  const int64_t t = 8192;
  const BatchShape prefill = testing::OnePromptPrefill(t);
  auto layer = [&](model::Kernels k) {
    o.kernels = k;
    auto cost = MakeCostModel(o, *Env().env);
    EXPECT_TRUE(cost.ok());
    return (*cost)->Time(prefill).per_layer;
  };
  const Duration fused = layer(model::Kernels::kFused), eager = layer(model::Kernels::kEager);
  const auto compute = CostInputs(o, *Env().env).compute;
  const model::ModelSpec& m = o.model;
  const double n = t, h = m.hidden, f = m.ffn_hidden, qkv = (m.heads + 2.0 * m.kv_heads) * m.head_dim();
  // The fused lines (serve/iteration_cost.cc RooflineLinear and DenseMlp), 2-byte activations.
  const Duration fused_mem = compute->MemoryBound(Bytes(2 * n * h * 2), Flops(5 * n * h)) * int64_t{2} +
                             compute->MemoryBound(Bytes(2 * n * qkv * 2), Flops(3 * n * qkv)) +
                             compute->MemoryBound(Bytes(3 * n * h * 2), Flops(n * h)) +
                             compute->MemoryBound(Bytes(3 * n * f * 2), Flops(8 * n * f));
  Duration eager_mem;
  for (const model::Op& op : model::EagerLayerOps(
           m, {.activation_bytes = 2, .kernels = model::Kernels::kEager, .residual_bytes = 2})) {
    if (op.kind != model::OpKind::kMemory || op.bytes_per_token <= 0) continue;
    eager_mem += compute->MemoryBound(Bytes(op.bytes_per_token * n), Flops(op.flops_per_token * n));
  }
  EXPECT_GT(eager_mem.ToMillis(), fused_mem.ToMillis());  // unfused kernels move more bytes
  EXPECT_NEAR((eager - fused).ToMillis(), (eager_mem - fused_mem).ToMillis(), 1e-6);
}

TEST(ServeEagerKernels, TheScenarioReadsThemAndRefusesAnMoeModel) {
  auto ok =
      testing::ParseScenario("model: {name: llama3.1-8b}\nhardware: {gpu: h200-sxm-141gb}\nkernels: eager\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->kernels, model::Kernels::kEager);
  auto moe = testing::ParseScenario(
      "model: {name: mixtral-8x7b}\nhardware: {gpu: h100-sxm5-80gb, tp: 2}\nkernels: eager\n");
  ASSERT_FALSE(moe.ok());
  EXPECT_NE(moe.error().message.find("s.yaml:3"), std::string::npos) << moe.error().message;
  EXPECT_NE(moe.error().message.find("a MoE model"), std::string::npos) << moe.error().message;
  auto bad =
      testing::ParseScenario("model: {name: llama3.1-8b}\nhardware: {gpu: h200-sxm-141gb}\nkernels: eagre\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("eager"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace dlsim::serve
