// Flash-LLM's sparse weights in the serving simulator (ServeOptions::weight_sparsity): less
// weight memory, so more KV blocks, and memory-bound decode iterations priced by the sparse GEMM.
#include <gtest/gtest.h>

#include "dlsim/serve/offload.h"
#include "dlsim/serve/setup.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::BaseOptions;
using testing::Env;

struct Priced {
  MemoryPlan plan;
  Duration decode;   // 16 decodes at 576 tokens of context
  Duration prefill;  // one 4096-token prompt
  bool profiled = false;
};

Priced Price(double sparsity) {
  ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.weight_sparsity = sparsity;
  auto cost = MakeCostModel(o, *Env().env).value();
  Priced p;
  p.plan = PlanMemory(o, *cost).value();
  p.decode = cost->Time({.decode_requests = 16, .decode_context = 16 * 576, .logits = 16}).Total(32);
  p.prefill = cost->Time({.prefill_tokens = 4096,
                          .prefill_pairs = 4096.0 * 4097 / 2,
                          .prefill_requests = 1,
                          .logits = 1})
                  .Total(32);
  p.profiled = cost->profiled();
  return p;
}

TEST(SparseWeights, LessWeightMemoryFasterDecodeNoFasterPrefill) {
  const Priced dense = Price(0.0), sparse = Price(0.8);
  EXPECT_TRUE(dense.profiled);    // the Vidur profile of llama2-7b on A100
  EXPECT_FALSE(sparse.profiled);  // dense measurements do not apply
  // Layers shrink to (1 - 0.8) x 4 / 2 = 0.4 of their bytes; embeddings and LM head stay dense.
  const ServeOptions o = BaseOptions("llama2-7b", "a100-sxm4-80gb");
  const double layers = o.model.layers * o.model.LayerParameters() * 2.0;
  EXPECT_NEAR(sparse.plan.weights.ToBytes(), dense.plan.weights.ToBytes() - 0.6 * layers, 1.0);
  EXPECT_GT(sparse.plan.kv_blocks, dense.plan.kv_blocks);
  EXPECT_LT(sparse.decode, dense.decode);
  EXPECT_GT(sparse.prefill.ToSeconds(), 0.9 * dense.prefill.ToSeconds());
}

}  // namespace
}  // namespace dlsim::serve
