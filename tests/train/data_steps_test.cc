// Data-aware steps: uniform contents reproduce the uniform simulation exactly; skewed
// contents create stragglers that the uniform model cannot see.
#include <gtest/gtest.h>

#include <cmath>

#include "common/train_fixture.h"
#include "dlsim/data/data_policy.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_model.h"

namespace dlsim::train {
namespace {

class DataStepsTest : public testing::CatalogTrainTest {
 protected:
  void SetUp() override {
    CatalogTrainTest::SetUp();
    o_.model = Model("llama3-8b");
    o_.hardware.gpu = "h100-sxm5-80gb";
    o_.hardware.node = "dgx-h100";
    o_.hardware.gpus = 16;
    o_.training.seq_len = 4096;
    o_.training.global_batch = 16;
    o_.parallel.tp = 2;
    o_.parallel.pp = 2;
    o_.parallel.sequence_parallel = true;
  }
  using CatalogTrainTest::Run;
  StepResult Run() { return Run(o_); }
  data::DataOptions Fixed(int64_t length, const std::string& policy) {
    data::DataOptions d;
    d.lengths.distribution = "fixed";
    d.lengths.value = static_cast<double>(length);
    d.policy = policy;
    d.steps = 3;
    return d;
  }

  TrainOptions o_;
};

TEST_F(DataStepsTest, UniformContentsEqualTheUniformModel) {
  const StepResult uniform = Run();
  ASSERT_TRUE(uniform.feasible) << uniform.reason;
  o_.data = Fixed(4096, "pack");
  const StepResult data = Run();
  ASSERT_TRUE(data.feasible) << data.reason;
  ASSERT_TRUE(data.data.has_value());
  EXPECT_NEAR(data.step_time_s, uniform.step_time_s, 1e-9);
  EXPECT_EQ(data.data->steps, 3);
  EXPECT_NEAR(data.data->straggler_max_s, 0, 1e-12);
  EXPECT_NEAR(data.data->padding_fraction, 0, 1e-12);
  EXPECT_NEAR(data.peak_memory.ToBytes(), uniform.peak_memory.ToBytes(), 1);
}

// Regression (issue 18): with documents longer than the budget, a step has fewer documents than
// DP replicas. The idle replicas still join the gradient reduction, so the step lasts as long as
// the busiest replica; it used to last 0 ns (the reduction waited for buckets the idle replicas
// never produced) with inf throughput and feasible: true.
TEST_F(DataStepsTest, FewerDocumentsThanReplicasIsARealStep) {
  o_.parallel.pp = 1;
  o_.parallel.tp = 2;
  o_.hardware.gpus = 8;  // dp 4
  o_.data = Fixed(50000, "pack");
  o_.training.global_batch = 16;
  const StepResult r = Run();
  ASSERT_TRUE(r.feasible) << r.reason;
  ASSERT_TRUE(r.data.has_value());
  EXPECT_GT(r.step_time_s, 0);
  EXPECT_GT(r.data->straggler_max_s, 0);              // idle replicas wait for the busy one
  EXPECT_GE(r.step_time_s, r.data->straggler_max_s);  // the step spans the busiest replica's compute
  EXPECT_GT(r.breakdown.compute_s, 0);
  EXPECT_TRUE(std::isfinite(r.tokens_per_s) && r.tokens_per_s > 0);
  EXPECT_TRUE(std::isfinite(r.mfu) && r.mfu > 0 && r.mfu < 1);
}

TEST_F(DataStepsTest, SkewedLengthsCreateStragglers) {
  data::DataOptions d;
  d.lengths.distribution = "lognormal";
  d.lengths.median = 600;
  d.lengths.sigma = 1.5;
  d.lengths.max_len = 4096;
  d.policy = "pad";
  d.steps = 4;
  o_.data = d;
  o_.training.micro_batch = 2;  // two documents per micro-batch: the shorter is padded
  const StepResult r = Run();
  ASSERT_TRUE(r.data.has_value()) << r.reason;
  EXPECT_GT(r.data->straggler_mean_s, 0);
  EXPECT_GT(r.data->padding_fraction, 0.1);
  EXPECT_LE(r.data->p50_s, r.data->max_s);
}

// Padding to max_len (a fixed-shape engine's input) makes every micro-batch micro_batch x max_len dense
// tokens whatever the lengths: exactly the uniform model's micro-batch (time, FLOPs, activations);
// padding to the batch's longest costs less.
TEST_F(DataStepsTest, PadToMaxLenIsTheUniformDenseMicroBatch) {
  o_.model = **catalogs_->models.Find("bert-base");
  o_.hardware.gpu = "a100-sxm4-80gb";
  o_.hardware.node = "dgx-a100";
  o_.hardware.gpus = 1;
  o_.parallel = ParallelOptions{};
  o_.training.seq_len = 512;
  o_.training.global_batch = 16;
  o_.training.micro_batch = 16;
  auto plan = MakeParallelPlan(o_);
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  auto owned = MakeStepContext(o_, *catalogs_);
  ASSERT_TRUE(owned.ok());
  const ChunkCostModel costs(o_, *plan, (*owned)->ctx);
  data::DataPolicyRegistry policies("data-policy");
  data::RegisterDataPolicies(policies);
  auto pad = policies.Create("pad");
  ASSERT_TRUE(pad.ok());
  std::vector<int64_t> docs;
  for (int i = 0; i < 16; ++i) docs.push_back(102 + 25 * i);  // 102..477, all shorter than 512
  data::DataShape shape{.micro_batch = 16, .seq_len = 512, .causal = false, .pad_to = data::PadTo::kMaxLen};
  auto step = (*pad)->Schedule(docs, shape);
  ASSERT_TRUE(step.ok());
  ASSERT_EQ(step->dp[0].size(), 1u);
  const ChunkCosts padded = costs.Price(step->dp[0][0])[0], uniform = costs.Get(0, 0);
  EXPECT_EQ(padded.forward.Total(), uniform.forward.Total());
  EXPECT_EQ(padded.backward.Total(), uniform.backward.Total());
  EXPECT_DOUBLE_EQ(padded.model_flops.ToFlops(), uniform.model_flops.ToFlops());
  EXPECT_DOUBLE_EQ(padded.activations.ToBytes(), uniform.activations.ToBytes());
  EXPECT_DOUBLE_EQ(padded.model_flops.ToFlops(),
                   3 * model::ModelForwardFlops(o_.model, 16.0 * 512, 512, /*causal_halving=*/false));
  shape.pad_to = data::PadTo::kLongest;
  auto longest = (*pad)->Schedule(docs, shape);
  ASSERT_TRUE(longest.ok());
  EXPECT_LT(costs.Price(longest->dp[0][0])[0].forward.Total(), uniform.forward.Total());
}

// ChunkFlow keeps the K/V of a long document's earlier chunks (and their gradients) resident while its
// later chunks run: 2 x prefix tokens x (K + V bytes per token on one TP rank) per layer, once per
// stage. Documents of 2 and 4 chunks of 8K: the last chunk's prefix is 8K and 24K tokens, and every
// chunk is the same 8K tokens, so peak memory differs by exactly the extra prefix state.
TEST_F(DataStepsTest, ChunkFlowMemoryGrowsWithThePrefixItKeeps) {
  o_.parallel.pp = 1;
  o_.parallel.tp = 8;
  o_.hardware.gpus = 8;  // tp 8, dp 1
  o_.parallel.recompute = Recompute::kSelective;
  o_.training.seq_len = 8192;
  o_.training.global_batch = 4;  // 32K tokens per step
  auto peak = [&](int64_t length) {
    o_.data = Fixed(length, "chunkflow");
    o_.data->chunk_size = 8192;
    o_.data->lengths.max_len = 65536;
    const StepResult r = Run();
    EXPECT_TRUE(r.feasible) << r.reason;
    return r.peak_memory.ToBytes();
  };
  const double two_chunks = peak(16384), four_chunks = peak(32768);
  const double kv_bytes = 2.0 * (o_.model.kv_heads / 8) * o_.model.head_dim() * 2;  // bf16 K + V, tp 8
  EXPECT_NEAR(four_chunks - two_chunks, 2.0 * (24576 - 8192) * kv_bytes * o_.model.layers, 1.0);
  EXPECT_GT(peak(8192 * 6), four_chunks);
}

// Under pipeline parallelism a long document's chunks run forward in order and backward in reverse
// (state-aware 1F1B). With K = 1 only the last chunk keeps its activations; the earlier ones hold theirs
// only while they are recomputed at their backward, so a stage holds one chunk's activations at a time,
// where 1F1B over the same number of independent micro-batches holds pp on the first stage.
TEST_F(DataStepsTest, ChunkFlowChainsUnderPipelineHoldOneChunk) {
  o_.hardware.gpus = 4;  // tp 2, pp 2, dp 1
  o_.parallel.recompute = Recompute::kSelective;
  o_.training.seq_len = 8192;
  o_.training.global_batch = 4;  // 32K tokens per step: one document of four chunks
  o_.data = Fixed(32768, "chunkflow");
  o_.data->chunk_size = 8192;
  o_.data->lengths.max_len = 65536;
  const StepResult chained = Run();
  ASSERT_TRUE(chained.feasible) << chained.reason;
  EXPECT_GT(chained.step_time_s, 0);
  EXPECT_EQ(chained.memory[0].micro_batches_in_flight, 1);
  o_.data = Fixed(8192, "pack");  // four independent 8K micro-batches
  const StepResult packed = Run();
  ASSERT_TRUE(packed.feasible) << packed.reason;
  EXPECT_EQ(packed.memory[0].micro_batches_in_flight, 2);
  // The chain's reverse backward starts only after its last forward: a longer pipeline fill.
  EXPECT_GT(chained.step_time_s, packed.step_time_s);
}

// Regression: model FLOPs used seq_len for the attention term, so short documents in long rows (or in a long
// CP-sharded context) gave model FLOP/s above the GPU's peak. With real documents the attention term counts
// each document on its own: keys per query = sum(l^2) / sum(l), here exactly the fixed document length.
TEST_F(DataStepsTest, ModelFlopsCountEachDocumentsAttention) {
  o_.data = Fixed(1024, "pack");
  const StepResult r = Run();
  ASSERT_TRUE(r.feasible) << r.reason;
  ASSERT_TRUE(r.data.has_value());
  const double tokens = r.data->real_tokens_per_step;
  const double want = 3 * model::ModelForwardFlops(o_.model, tokens, 1024, false) * 1e-12;
  EXPECT_NEAR(r.model_tflops_per_gpu * o_.hardware.gpus * r.step_time_s, want, 1e-6 * want);
  EXPECT_LT(r.mfu, 1.0);
}

// An unknown policy is an error, not an infeasible layout (infeasibility is a property of the
// configuration; a wrong name is bad input).
// cp_comm: all_gather (WLB-LLM's and Llama 3's CP) gathers K/V before attention and reduce-scatters
// dK/dV after it, on the compute stream: nothing hides, where the ring hides behind the attention.
// The gather and the scatter move the same bytes with the same ring formula, so selective
// recomputation (which re-runs the gather in the backward) makes the CP time exactly 3/2.
TEST_F(DataStepsTest, AllGatherCpExposesGatherAndScatter) {
  o_.parallel.pp = 1;
  o_.parallel.cp = 8;
  o_.training.seq_len = 32768;
  o_.training.global_batch = 2;
  const StepResult ring = Run();
  o_.parallel.cp_comm = CpComm::kAllGather;
  const StepResult gather = Run();
  o_.parallel.recompute = Recompute::kSelective;
  const StepResult regather = Run();
  ASSERT_TRUE(ring.feasible && gather.feasible && regather.feasible) << gather.reason;
  EXPECT_GT(gather.breakdown.cp_comm_s, ring.breakdown.cp_comm_s);
  EXPECT_GT(gather.step_time_s, ring.step_time_s);
  EXPECT_NEAR(regather.breakdown.cp_comm_s, 1.5 * gather.breakdown.cp_comm_s,
              1e-9 * gather.breakdown.cp_comm_s);
}

// cp_impl: pytorch (PyTorch's experimental ring) adds its copies and fp32 merges as memory-bound kernels and
// nothing else: GEMM and attention time do not move, and with the rank's tokens held (4,096 at cp 2 and at
// cp 8) the added time scales as the closed form's bytes, (342 + 504) / (66 + 144) per unit width.
TEST_F(DataStepsTest, PytorchCpAddsItsMergesAsMemoryTraffic) {
  o_.parallel.pp = 1;
  o_.parallel.recompute = Recompute::kNone;
  o_.training.global_batch = 2;
  auto run = [&](int cp, CpImpl impl) {
    o_.parallel.cp = cp;
    o_.hardware.gpus = o_.parallel.tp * cp;  // dp 1: the same two micro-batches per rank
    o_.training.seq_len = 4096 * cp;
    o_.parallel.cp_impl = impl;
    return Run();
  };
  const StepResult f2 = run(2, CpImpl::kFused), p2 = run(2, CpImpl::kPytorch);
  const StepResult f8 = run(8, CpImpl::kFused), p8 = run(8, CpImpl::kPytorch);
  ASSERT_TRUE(f2.feasible && p2.feasible && f8.feasible && p8.feasible) << f2.reason << p8.reason;
  EXPECT_DOUBLE_EQ(p8.breakdown.gemm_s, f8.breakdown.gemm_s);
  EXPECT_DOUBLE_EQ(p8.breakdown.attention_s, f8.breakdown.attention_s);
  const double added2 = p2.breakdown.memory_s - f2.breakdown.memory_s;
  const double added8 = p8.breakdown.memory_s - f8.breakdown.memory_s;
  ASSERT_GT(added2, 0);
  EXPECT_NEAR(added8 / added2, (342.0 + 504.0) / (66.0 + 144.0), 0.01 * 846 / 210);
  EXPECT_GT(p8.step_time_s, f8.step_time_s);
}

TEST_F(DataStepsTest, UnknownPolicyIsAnError) {
  o_.data = Fixed(4096, "packing");
  auto owned = MakeStepContext(o_, *catalogs_);
  ASSERT_TRUE(owned.ok());
  Result<StepResult> r = SimulateTrainingStep(o_, (*owned)->ctx, schedules_, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().code, ErrorCode::kInfeasible);
  EXPECT_NE(r.error().message.find("unknown data-policy 'packing' (did you mean 'pack'?)"), std::string::npos)
      << r.error().message;
}

}  // namespace
}  // namespace dlsim::train
