// TP all-reduce as engines run it: the measured table's interpolation (closed form), each engine's rule
// for which messages go to the custom kernel, and the behaviour the real-engine runs show (an 8B model's
// batch-1 decode more than halves from TP 1 to TP 8; a 70B model is faster at TP 8 than at TP 4), which the
// SplitwiseSim-fitted NCCL overhead (engine splitwise-2023) does not reproduce.
#include "dlsim/serve/tp_allreduce.h"

#include <gtest/gtest.h>

#include <cmath>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/serve/setup.h"

namespace dlsim::serve {
namespace {

TEST(AllReduceTable, InterpolatesLogLinearlyAndExtrapolatesLinearly) {
  auto t = ParseAllReduceTable(
      "architecture,world,bytes,us,source\nx,2,1000,10,a\nx,2,4000,20,a\nx,2,8000,40,a\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_DOUBLE_EQ(t->CustomMicros("x", 2, 4000), 20);
  EXPECT_DOUBLE_EQ(t->CustomMicros("x", 2, 2000), 15);   // halfway in log(bytes) between 1000 and 4000
  EXPECT_DOUBLE_EQ(t->CustomMicros("x", 2, 10), 10);     // below the first row: the first row
  EXPECT_DOUBLE_EQ(t->CustomMicros("x", 2, 12000), 60);  // past the last: the last two rows' slope
  EXPECT_EQ(t->CustomMicros("x", 4, 1000), 0);           // no row for the world size
  EXPECT_FALSE(ParseAllReduceTable("architecture,world,bytes,us,source\nx,1,10,5,a\n", "bad.csv").ok());
  EXPECT_FALSE(ParseAllReduceTable("architecture,world,bytes\nx,2,10\n", "bad.csv").ok());
}

TEST(EngineProfile, WhichMessagesTheCustomKernelTakes) {
  const EngineProfile& vllm = **FindEngine("vllm-0.6");
  EXPECT_TRUE(vllm.UsesCustomAllReduce(8, 1 << 20, true));
  EXPECT_FALSE(vllm.UsesCustomAllReduce(8, 8 << 20, true));  // 8 MiB and above: NCCL
  EXPECT_FALSE(vllm.UsesCustomAllReduce(3, 1024, true));     // world sizes 2, 4, 6, 8 only
  EXPECT_FALSE(vllm.UsesCustomAllReduce(4, 1024, false));    // more than 2 GPUs need full NVLink
  EXPECT_TRUE(vllm.UsesCustomAllReduce(2, 1024, false));
  const EngineProfile& trt = **FindEngine("trtllm");
  EXPECT_TRUE(trt.UsesCustomAllReduce(4, 999'999, true));
  EXPECT_FALSE(trt.UsesCustomAllReduce(4, 1'000'000, true));
  EXPECT_FALSE(trt.UsesCustomAllReduce(8, 500'000, true));
  EXPECT_FALSE((*FindEngine("splitwise-2023"))->UsesCustomAllReduce(8, 1024, true));
  auto bad = FindEngine("vllm-06");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean 'vllm-0.6'"), std::string::npos) << bad.error().message;
}

// Batch-1 decode iteration (ms) of `model` on H100 at `tp` under `engine`.
double DecodeMs(const std::string& model, int tp, const std::string& engine) {
  static auto cat = io::LoadCatalogs({});
  static auto env = MakeServeEnvironment(cat->compute, cat->network);
  ServeOptions o;
  o.model = *cat->models.Find(model).value();
  o.gpu = *cat->hardware.FindGpu("h100-sxm5-80gb").value();
  o.hardware.tp = tp;
  o.engine = engine;
  auto cost = MakeCostModel(o, **env);
  EXPECT_TRUE(cost.ok());
  const BatchShape b{.decode_requests = 1, .decode_context = 1024, .logits = 1};
  return (*cost)->Time(b).Total(o.model.layers).ToMillis();
}

TEST(TpAllReduce, DecodeScalesWithTensorParallelismAsRealEnginesDo) {
  EXPECT_LT(DecodeMs("llama3-8b", 8, "default"), 0.5 * DecodeMs("llama3-8b", 1, "default"));
  EXPECT_LT(DecodeMs("llama3-70b", 8, "default"), DecodeMs("llama3-70b", 4, "default"));
  // The 2023 engine's fitted NCCL overhead makes TP 8 slower than TP 4 for the 8B model.
  EXPECT_GT(DecodeMs("llama3-8b", 8, "splitwise-2023"), DecodeMs("llama3-8b", 4, "splitwise-2023"));
  auto cat = io::LoadCatalogs({});
  auto env = MakeServeEnvironment(cat->compute, cat->network);
  ServeOptions o;
  o.model = *cat->models.Find("llama3-8b").value();
  o.gpu = *cat->hardware.FindGpu("h100-sxm5-80gb").value();
  o.engine = "vllm-9";
  EXPECT_FALSE(MakeCostModel(o, **env).ok());  // hand-built options are checked too
}

}  // namespace
}  // namespace dlsim::serve
