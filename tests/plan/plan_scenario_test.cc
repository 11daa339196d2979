// The `search:` section of planner scenarios, its errors, and the scenario
// writer.
#include "dlsim/io/plan_scenario.h"

#include <gtest/gtest.h>

#include "dlsim/io/train_scenario.h"
#include "plan_test_util.h"

namespace dlsim::io {
namespace {

using plan::testing::PlanFixture;

constexpr const char* kBase = R"(model:
  name: llama3-8b
hardware:
  node: dgx-h100
  gpus: 16
training:
  seq_len: 4096
  global_batch: 64
)";

class PlanScenarioTest : public PlanFixture {
 protected:
  Result<PlanScenario> Parse(const std::string& search) {
    return ParsePlanScenario(std::string(kBase) + search, "p.yaml", catalogs_.hardware, catalogs_.models);
  }
  std::string ErrorOf(const std::string& search) {
    auto r = Parse(search);
    return r.ok() ? "(parsed)" : r.error().message;
  }
};

TEST_F(PlanScenarioTest, ReadsEveryKey) {
  auto r = Parse(R"(search:
  tp: [1, 2]
  pp: [1, 2, 4]
  cp: [1, 2]
  dp: [4, 8]
  micro_batch: [1, 2]
  virtual_stages: [1, 2]
  zero: [0, 1, 3]
  recompute: [none, full]
  pipeline_schedule: [1f1b, interleaved]
  sequence_parallel: [true, false]
  top_k: 3
  dominance: false
  constraints:
    min_gpus: 8
    max_gpus: 64
    tokens_per_step: 1048576
    memory_headroom: 0.1
    objective: cost
    gpu_hour_cost: 2.5
)");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const plan::PlanOptions& o = r->options;
  EXPECT_EQ(o.space.pp, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(o.space.dp, (std::vector<int>{4, 8}));
  EXPECT_EQ(o.space.zero, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(o.space.recompute,
            (std::vector<train::Recompute>{train::Recompute::kNone, train::Recompute::kFull}));
  EXPECT_EQ(o.space.pipeline_schedule.back(), train::PipelineScheduleKind::kInterleaved);
  EXPECT_EQ(o.space.sequence_parallel, (std::vector<bool>{true, false}));
  EXPECT_EQ(o.top_k, 3);
  EXPECT_FALSE(o.dominance);
  EXPECT_EQ(o.constraints.gpus_min, 8);
  EXPECT_EQ(o.constraints.gpus_max, 64);
  EXPECT_EQ(*o.constraints.tokens_per_step, 1048576);
  EXPECT_DOUBLE_EQ(o.constraints.memory_headroom, 0.1);
  EXPECT_EQ(o.constraints.objective, plan::Objective::kCost);
  EXPECT_DOUBLE_EQ(o.constraints.gpu_hour_cost, 2.5);
  EXPECT_EQ(r->base.hardware.gpus, 16);
}

TEST_F(PlanScenarioTest, ErrorsNameLineKeyAndAlternatives) {
  EXPECT_NE(ErrorOf("search:\n  tpp: [1]\n")
                .find("p.yaml:10:3: search.tpp: unknown key 'tpp' (did you "
                      "mean 'tp'?)"),
            std::string::npos)
      << ErrorOf("search:\n  tpp: [1]\n");
  const std::string bad_enum = ErrorOf("search:\n  recompute: [none, ful]\n");
  EXPECT_NE(bad_enum.find("p.yaml:10:"), std::string::npos) << bad_enum;
  EXPECT_NE(bad_enum.find("did you mean 'full'?"), std::string::npos) << bad_enum;
  EXPECT_NE(ErrorOf("search:\n  tp: 4\n").find("expected a list of integers"), std::string::npos);
  EXPECT_NE(ErrorOf("search:\n  tp: [0]\n").find("search.tp[0]"), std::string::npos);
  EXPECT_NE(ErrorOf("search:\n  tp: []\n").find("give at least one value"), std::string::npos);
  EXPECT_NE(ErrorOf("").find("missing section"), std::string::npos);
  EXPECT_NE(ErrorOf("search:\n  constraints:\n    min_gpus: 8\n").find("give both min_gpus and max_gpus"),
            std::string::npos);
  EXPECT_NE(ErrorOf("search:\n  constraints:\n    objective: speed\n").find("allowed: step_time"),
            std::string::npos);
  EXPECT_NE(ErrorOf("search:\n  constraints:\n    tokens_per_step: 100\n").find("less than one sequence"),
            std::string::npos);
}

TEST_F(PlanScenarioTest, TrainParserStillRejectsSearchWithoutTheHook) {
  auto r = ParseTrainScenario(std::string(kBase) + "search:\n  tp: [1]\n", "t.yaml", catalogs_.hardware,
                              catalogs_.models);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("unknown key 'search'"), std::string::npos);
}

TEST_F(PlanScenarioTest, WrittenScenarioParsesBackToTheSameOptions) {
  auto r = Parse("search:\n  tp: [1]\n");
  ASSERT_TRUE(r.ok());
  train::TrainOptions o = r->base;
  o.parallel.tp = 2;
  o.parallel.pp = 2;
  o.parallel.dp = 4;
  o.parallel.pipeline_schedule = train::PipelineScheduleKind::kInterleaved;
  o.parallel.virtual_stages = 2;
  o.parallel.recompute = train::Recompute::kFull;
  o.parallel.layers_per_stage = {7, 9, 8, 8};
  o.training.micro_batch = 2;
  o.training.precision = hw::DType::kFp8;
  o.training.attention = model::AttentionImpl::kUnfused;
  o.training.grad_dtype = hw::DType::kBf16;
  const std::string yaml = FormatTrainScenarioYaml(o, "line one\nline two");
  EXPECT_EQ(yaml.rfind("# line one\n# line two\n", 0), 0u);
  auto back = ParseTrainScenario(yaml, "best.yaml", catalogs_.hardware, catalogs_.models);
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml;
  EXPECT_EQ(SummarizeTrainOptions(*back), SummarizeTrainOptions(o));
  EXPECT_EQ(back->parallel.layers_per_stage, o.parallel.layers_per_stage);
  EXPECT_EQ(back->model.ParameterCount(), o.model.ParameterCount());
  EXPECT_EQ(back->model.name, "llama3-8b");
  EXPECT_EQ(back->hardware.nic_gbps, o.hardware.nic_gbps);
  EXPECT_EQ(back->training.precision, hw::DType::kFp8);
  EXPECT_EQ(back->training.attention, model::AttentionImpl::kUnfused);
  EXPECT_EQ(back->training.grad_dtype, std::optional<hw::DType>(hw::DType::kBf16));
}

// The data section survives the writer: every key, a distribution's parameters, inline values.
TEST_F(PlanScenarioTest, WrittenScenarioKeepsTheDataSection) {
  for (const char* lengths : {"{distribution: pareto_mix, median: 1500.5, sigma: 1.25, tail_fraction: 0.1, "
                              "tail_min: 8000, tail_alpha: 1.5}",
                              "{distribution: empirical, values: [100, 2000.5], weights: [3, 0.25]}",
                              "{distribution: uniform, low: 10, high: 4000}"}) {
    auto r = Parse(std::string("data:\n  lengths: ") + lengths +
                   "\n  max_len: 4096\n  policy: wlb\n  seed: 7\n  steps: 3\n  chunk_size: 512\n"
                   "  token_budget: 8192\nsearch:\n  tp: [1]\n");
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::string yaml = FormatTrainScenarioYaml(r->base, "data");
    auto back = ParseTrainScenario(yaml, "best.yaml", catalogs_.hardware, catalogs_.models);
    ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml;
    ASSERT_TRUE(back->data.has_value()) << yaml;
    const data::DataOptions &a = *r->base.data, &b = *back->data;
    EXPECT_EQ(b.lengths.distribution, a.lengths.distribution);
    for (auto field : {&data::LengthSpec::value, &data::LengthSpec::low, &data::LengthSpec::high,
                       &data::LengthSpec::median, &data::LengthSpec::sigma, &data::LengthSpec::tail_fraction,
                       &data::LengthSpec::tail_min, &data::LengthSpec::tail_alpha})
      EXPECT_EQ(b.lengths.*field, a.lengths.*field) << yaml;
    EXPECT_EQ(b.lengths.values, a.lengths.values);
    EXPECT_EQ(b.lengths.weights, a.lengths.weights);
    EXPECT_EQ(b.lengths.max_len, 4096);
    EXPECT_EQ(b.policy, "wlb");
    EXPECT_EQ(b.seed, 7u);
    EXPECT_EQ(b.steps, 3);
    EXPECT_EQ(b.chunk_size, 512);
    EXPECT_EQ(b.token_budget, 8192);
  }
  auto none = Parse("search:\n  tp: [1]\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(FormatTrainScenarioYaml(none->base, "").find("data:"), std::string::npos);
}

// `plan --write-best` dropped `routing:` and `cost:` (issue 35): the written file trained 23% faster than the
// plan said. Both now survive, the histogram inline so the file stands alone.
TEST_F(PlanScenarioTest, WrittenScenarioKeepsRoutingAndTheComputeModel) {
  for (const char* routing :
       {"{skew: zipf, zipf_s: 1.7}", "{skew: histogram, histogram: [5, 1, 1, 1, 1, 1, 1, 2.5]}"}) {
    auto r =
        ParseTrainScenario(std::string("model: {name: mixtral-8x7b}\nhardware: {node: dgx-h100, gpus: 8}\n"
                                       "parallel: {ep: 8}\ncost: {model: tile}\nrouting: ") +
                               routing + "\n",
                           "moe.yaml", catalogs_.hardware, catalogs_.models);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const std::string yaml = FormatTrainScenarioYaml(*r, "moe");
    auto back = ParseTrainScenario(yaml, "best.yaml", catalogs_.hardware, catalogs_.models);
    ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml;
    ASSERT_TRUE(back->routing.has_value()) << yaml;
    EXPECT_EQ(back->routing->skew, r->routing->skew);
    EXPECT_EQ(back->routing->zipf_s, r->routing->zipf_s);
    EXPECT_EQ(back->routing->histogram, r->routing->histogram);
    EXPECT_EQ(back->compute_model, "tile");
  }
}

// The stack, the recipe and the attention family survive the writer: `plan --write-best` on an eager-PyTorch
// scenario wrote a Megatron mixed-precision one (16 B instead of 8 B of state per parameter, no stack host
// time, the fitted attention kernel).
TEST_F(PlanScenarioTest, WrittenScenarioKeepsTheStackRecipeAndAttentionFamily) {
  auto r = ParseTrainScenario(
      "model: {name: llama3-8b}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n"
      "training: {stack: pytorch-eager-bf16, attention_backend: flash, global_batch: 1}\n",
      "eager.yaml", catalogs_.hardware, catalogs_.models);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const std::string yaml = FormatTrainScenarioYaml(*r, "eager");
  auto back = ParseTrainScenario(yaml, "best.yaml", catalogs_.hardware, catalogs_.models);
  ASSERT_TRUE(back.ok()) << back.error().message << "\n" << yaml;
  EXPECT_EQ(back->training.stack, "pytorch-eager-bf16");
  EXPECT_EQ(back->training.stack_layer_host_us, r->training.stack_layer_host_us);
  EXPECT_EQ(back->training.recipe, train::Recipe::kBf16);
  EXPECT_EQ(back->training.attention_backend, cost::AttentionBackend::kFlash2);
  EXPECT_EQ(back->training.grad_dtype, std::optional<hw::DType>(hw::DType::kBf16));
  EXPECT_EQ(back->parallel.zero, 0);
  // Unfused attention under a stack that names a fused family: the family is not written (naming one with
  // unfused attention is an error), the stack's comes back unused.
  auto unfused = ParseTrainScenario(
      "model: {name: llama3-8b}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n"
      "training: {stack: pytorch-eager-bf16, attention: unfused, global_batch: 1}\n",
      "eager.yaml", catalogs_.hardware, catalogs_.models);
  ASSERT_TRUE(unfused.ok()) << unfused.error().message;
  const std::string written = FormatTrainScenarioYaml(*unfused, "unfused");
  auto again = ParseTrainScenario(written, "best.yaml", catalogs_.hardware, catalogs_.models);
  ASSERT_TRUE(again.ok()) << again.error().message << "\n" << written;
  EXPECT_EQ(again->training.attention, model::AttentionImpl::kUnfused);
}

}  // namespace
}  // namespace dlsim::io
