// Launch configurations (io/launch_config.h): a Megatron launch script, a NeMo recipe and torchtitan TOMLs
// give the published Llama 3 shapes (the catalog's, parameter for parameter), their layouts and Megatron's
// own defaults (SwiGLU FFN rounding, vocabulary padding, dropout 0.1, tied embeddings); a scenario naming one
// takes its keys under its own; bad files and values get errors naming the file, the line and the argument.
#include "dlsim/io/launch_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"

namespace dlsim::io {
namespace {

std::string Data(const std::string& name) { return std::string(DLSIM_TEST_DATA_DIR) + "/launch/" + name; }

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(std::move(LoadCatalogs({}).value()));
  return *c;
}

void ExpectShapeOf(const model::ModelSpec& got, const std::string& catalog_name) {
  const model::ModelSpec& want = *Cat().models.Find(catalog_name).value();
  EXPECT_EQ(got.layers, want.layers);
  EXPECT_EQ(got.hidden, want.hidden);
  EXPECT_EQ(got.heads, want.heads);
  EXPECT_EQ(got.kv_heads, want.kv_heads);
  EXPECT_EQ(got.ffn_hidden, want.ffn_hidden);
  EXPECT_EQ(got.vocab, want.vocab);
  EXPECT_EQ(got.gated_mlp, want.gated_mlp);
  EXPECT_EQ(got.tied_embeddings, want.tied_embeddings);
  EXPECT_EQ(got.linear_bias, want.linear_bias);
  EXPECT_EQ(got.norm, want.norm);
  EXPECT_EQ(got.position_embedding, want.position_embedding);
  EXPECT_EQ(got.head_dim(), want.head_dim());
  EXPECT_DOUBLE_EQ(got.ParameterCount(), want.ParameterCount());
}

Result<LaunchConfig> Megatron(const std::string& args) { return ParseMegatronArgs(args, "run.sh"); }

TEST(MegatronArgs, LaunchScriptGivesLlama3Shape) {
  const LaunchConfig c =
      ParseMegatronArgs(ReadTextFile(Data("megatron_llama3_8b.sh")).value(), "run.sh").value();
  ExpectShapeOf(c.model, "llama3-8b");
  EXPECT_EQ(c.model.dropout, 0.0);
  EXPECT_EQ(c.stack, "megatron-core-0.8");
  EXPECT_EQ(c.tp, 2);  // $TP_SIZE
  EXPECT_EQ(c.cp, 2);  // ${CP:-2}: CP is not set
  EXPECT_EQ(c.pp, 1);
  EXPECT_EQ(c.sequence_parallel, true);
  EXPECT_EQ(c.zero, 1);  // --use-distributed-optimizer
  EXPECT_EQ(c.recompute, train::Recompute::kSelective);
  EXPECT_EQ(c.precision, hw::DType::kBf16);
  EXPECT_EQ(c.seq_len, 8192);
  EXPECT_EQ(c.micro_batch, 1);
  EXPECT_EQ(c.global_batch, 128);
  EXPECT_EQ(c.virtual_stages, 1);
}

TEST(MegatronArgs, DefaultsAreMegatrons) {
  // GPT-3 175B as examples/gpt3/train_gpt3_175b_distributed.sh gives it: no FFN, bias or dropout flags.
  const LaunchConfig c =
      Megatron(
          "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 "
          "--max-position-embeddings 2048 --micro-batch-size 1 --global-batch-size 1536 --fp16 "
          "--tensor-model-parallel-size 8 --pipeline-model-parallel-size 16 --vocab-size 50257")
          .value();
  EXPECT_EQ(c.model.ffn_hidden, 4 * 12288);
  EXPECT_EQ(c.model.kv_heads, 96);
  EXPECT_TRUE(c.model.tied_embeddings);
  EXPECT_TRUE(c.model.linear_bias);
  EXPECT_EQ(c.model.position_embedding, model::PositionEmbedding::kLearned);
  EXPECT_EQ(c.model.norm, model::Norm::kLayerNorm);
  EXPECT_DOUBLE_EQ(c.model.dropout, 0.1);
  EXPECT_EQ(c.model.vocab, 51200);  // 50257 padded to a multiple of 128 x tp 8 = 1024
  EXPECT_EQ(c.precision, hw::DType::kFp16);
  EXPECT_EQ(c.zero, 0);
  EXPECT_EQ(c.recompute, train::Recompute::kNone);
  // --swiglu without --ffn-hidden-size: int((4 h 2 / 3) / 64) * 64.
  EXPECT_EQ(Megatron("--num-layers 2 --hidden-size 4096 --num-attention-heads 32 --swiglu")->model.ffn_hidden,
            10880);
  // Without --vocab-size the tokenizer sets it: 0, for the scenario to give.
  EXPECT_EQ(Megatron("--num-layers 2 --hidden-size 64 --num-attention-heads 4")->model.vocab, 0);
}

TEST(MegatronArgs, FormsOfArguments) {
  const auto c = Megatron(
      "--num-layers=32 --hidden-size 1024 --num-attention-heads 16 --pipeline-model-parallel-size 4 "
      "--num-layers-per-virtual-pipeline-stage 4 --num-layers 32 --tensor-model-parallel-size 1 "
      "--tensor-model-parallel-size 2 'NAME=x' --recompute-granularity full --fp8-format hybrid --bf16");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->tp, 2);              // the last occurrence wins
  EXPECT_EQ(c->virtual_stages, 2);  // 32 layers / (pp 4 x 4 per virtual stage)
  EXPECT_EQ(c->pipeline_schedule, train::PipelineScheduleKind::kInterleaved);
  EXPECT_EQ(c->recompute, train::Recompute::kFull);
  EXPECT_EQ(c->precision, hw::DType::kFp8);
}

TEST(MegatronArgs, MixtureOfExperts) {
  const auto c = Megatron(
      "--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --num-experts 64 --moe-router-topk 6 "
      "--moe-ffn-hidden-size 1408 --moe-shared-expert-intermediate-size 5632 --expert-model-parallel-size 8");
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->model.moe.experts, 64);
  EXPECT_EQ(c->model.moe.top_k, 6);
  EXPECT_EQ(c->model.moe.shared_experts, 4);
  EXPECT_EQ(c->ep, 8);
  const auto bad = Megatron(
      "--num-layers 24 --hidden-size 2048 --num-attention-heads 16 --num-experts 64\n"
      "--moe-ffn-hidden-size 1408 --moe-shared-expert-intermediate-size 1000");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("run.sh:2: --moe-shared-expert-intermediate-size"), std::string::npos)
      << bad.error().message;
}

TEST(MegatronArgs, ErrorsNameFileLineAndArgument) {
  auto e = Megatron("--hidden-size 64 --num-attention-heads 4");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("run.sh: --num-layers is not given"), std::string::npos)
      << e.error().message;
  e = Megatron("--hidden-size 64\n--num-attention-heads 4\n--num-layers $LAYERS");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("run.sh:3: --num-layers"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("a variable the file does not set"), std::string::npos)
      << e.error().message;
  e = Megatron("--num-layers 2 --hidden-size 64 --num-attention-heads 4 --tensor-model-parallel-size -1");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--tensor-model-parallel-size"), std::string::npos) << e.error().message;
  e = Megatron(
      "--num-layers 30 --hidden-size 64 --num-attention-heads 4 --pipeline-model-parallel-size 4 "
      "--num-layers-per-virtual-pipeline-stage 4");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("does not divide"), std::string::npos) << e.error().message;
}

// Found by fuzz_launch_config: --swiglu on a hidden size under 24 made Megatron's default FFN width
// int(8h/3/64)*64 zero, a 0-wide MLP accepted; and 32 heads on a hidden size of 4 (head width 0).
TEST(MegatronArgs, ShapesMegatronWouldRefuseAreErrors) {
  auto e = Megatron("--num-layers 32 --hidden-size 16 --num-attention-heads 4\n--swiglu");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("run.sh:2: --swiglu"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("give --ffn-hidden-size"), std::string::npos) << e.error().message;
  EXPECT_TRUE(
      Megatron("--num-layers 2 --hidden-size 16 --num-attention-heads 4 --swiglu --ffn-hidden-size 48").ok());
  e = Megatron("--num-layers 32 --hidden-size 4 --num-attention-heads 32");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--num-attention-heads: 32 heads do not divide --hidden-size 4"),
            std::string::npos)
      << e.error().message;
  EXPECT_TRUE(Megatron("--num-layers 2 --hidden-size 4 --num-attention-heads 32 --kv-channels 8").ok());
  e = Megatron(
      "--num-layers 2 --hidden-size 64 --num-attention-heads 8 --group-query-attention --num-query-groups 3");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("--num-query-groups: 3 groups do not divide 8"), std::string::npos)
      << e.error().message;
}

TEST(NemoConfig, RecipeGivesShapeAndLayout) {
  const auto c = ParseNemoConfig(ReadTextFile(Data("nemo_llama3_8b.yaml")).value(), "llama3_8b.yaml");
  ASSERT_TRUE(c.ok()) << c.error().message;
  LaunchConfig l = *c;
  EXPECT_EQ(l.model.vocab, 0);  // the tokenizer's
  l.model.vocab = 128256;
  ExpectShapeOf(l.model, "llama3-8b");
  EXPECT_EQ(l.model.max_seq_len, 8192);  // ${.encoder_seq_length}
  EXPECT_EQ(l.stack, "nemo-24.07");
  EXPECT_EQ(l.gpus, 128);  // 16 nodes x 8 devices
  EXPECT_EQ(l.cp, 2);
  EXPECT_EQ(l.virtual_stages, 1);  // null
  EXPECT_EQ(l.global_batch, 2048);
  EXPECT_EQ(l.zero, 1);  // mcore_distributed_optim
  EXPECT_EQ(l.recompute, train::Recompute::kNone);
  EXPECT_EQ(l.precision, hw::DType::kBf16);
}

TEST(NemoConfig, Errors) {
  auto e = ParseNemoConfig("trainer: {devices: 8}\n", "r.yaml");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("no 'model:' section"), std::string::npos);
  e = ParseNemoConfig(
      "model:\n  num_layers: 2\n  hidden_size: 64\n  num_attention_heads: 4\n"
      "  activations_checkpoint_granularity: sometimes\n",
      "r.yaml");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("r.yaml:5"), std::string::npos) << e.error().message;
  e = ParseNemoConfig("model:\n  num_layers: two\n  hidden_size: 64\n  num_attention_heads: 4\n", "r.yaml");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("model.num_layers"), std::string::npos) << e.error().message;
}

TEST(TorchtitanConfig, FlavorsAreThePublishedShapes) {
  const auto c =
      ParseTorchtitanConfig(ReadTextFile(Data("torchtitan_llama3_8b.toml")).value(), "8b.toml", Cat().models);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ExpectShapeOf(c->model, "llama3-8b");
  EXPECT_EQ(c->stack, "torchtitan-2024.12");
  EXPECT_EQ(c->seq_len, 8192);
  EXPECT_EQ(c->micro_batch, 1);
  EXPECT_FALSE(c->global_batch.has_value());  // local batch x data-parallel degree
  EXPECT_EQ(c->zero, 3);                      // data_parallel_shard_degree -1: FSDP
  EXPECT_EQ(c->recompute, train::Recompute::kSelective);
  EXPECT_EQ(c->precision, hw::DType::kBf16);
  EXPECT_EQ(c->tp, 1);
}

TEST(TorchtitanConfig, OlderLayout) {
  const auto c = ParseTorchtitanConfig(ReadTextFile(Data("torchtitan_llama3_70b_2024.toml")).value(),
                                       "70b.toml", Cat().models);
  ASSERT_TRUE(c.ok()) << c.error().message;
  ExpectShapeOf(c->model, "llama3-70b");
  EXPECT_EQ(c->tp, 8);
  EXPECT_EQ(c->pp, 4);
  EXPECT_EQ(c->micro_batch, 8);
  EXPECT_EQ(c->pipeline_schedule, train::PipelineScheduleKind::kInterleaved);
  EXPECT_EQ(c->virtual_stages, 2);
  EXPECT_EQ(c->recompute, train::Recompute::kFull);
  EXPECT_EQ(c->precision, hw::DType::kFp8);  // converters = ["float8"]
  EXPECT_TRUE(c->sequence_parallel.value());
}

TEST(TorchtitanConfig, Errors) {
  auto e = ParseTorchtitanConfig("[model]\nname = \"llama3\"\nflavor = \"3B\"\n", "t.toml", Cat().models);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("flavor '3B'"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("llama3 8B"), std::string::npos) << e.error().message;
  e = ParseTorchtitanConfig("[model]\nflavor = \"8B\"\n[training]\nseq_len = \"long\"\n", "t.toml",
                            Cat().models);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("t.toml:4: training.seq_len"), std::string::npos) << e.error().message;
  e = ParseTorchtitanConfig("[model\nflavor = 8B\n", "t.toml", Cat().models);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("t.toml:1"), std::string::npos) << e.error().message;
  e = ParseTorchtitanConfig("[model]\nflavor = \"8B\"\n[activation_checkpoint]\nmode = \"memory_budget\"\n",
                            "t.toml", Cat().models);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("not simulated"), std::string::npos) << e.error().message;
}

class LaunchScenario : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("dlsim_launch_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::filesystem::copy_file(Data("megatron_llama3_8b.sh"), dir_ / "run.sh",
                               std::filesystem::copy_options::overwrite_existing);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Result<train::TrainOptions> Parse(const std::string& yaml) {
    return ParseTrainScenario(yaml, (dir_ / "s.yaml").string(), Cat().hardware, Cat().models);
  }
  std::filesystem::path dir_;
};

TEST_F(LaunchScenario, ScenarioKeysWinOverTheLaunch) {
  const auto o = Parse(
      "model: {megatron_args: run.sh}\nhardware: {gpu: h100-sxm5-80gb, gpus: 16}\n"
      "parallel: {tp: 4}\ntraining: {global_batch: 64}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->model.layers, 32);
  EXPECT_EQ(o->parallel.tp, 4);  // the scenario's
  EXPECT_EQ(o->parallel.cp, 2);  // the launch's
  EXPECT_EQ(o->parallel.zero, 1);
  EXPECT_EQ(o->training.global_batch, 64);
  EXPECT_EQ(o->training.seq_len, 8192);
  EXPECT_EQ(o->training.stack, "megatron-core-0.8");
  const auto other = Parse(
      "model: {megatron_args: run.sh}\nhardware: {gpu: h100-sxm5-80gb, gpus: 16}\n"
      "training: {stack: nemo-24.07}\n");
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->training.stack, "nemo-24.07");
}

TEST_F(LaunchScenario, Errors) {
  auto e = Parse("model: {megatron_args: missing.sh}\nhardware: {gpu: h100-sxm5-80gb, gpus: 8}\n");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("model.megatron_args"), std::string::npos) << e.error().message;
  e = Parse("model: {megatron_args: run.sh, name: llama3-8b}\nhardware: {gpu: h100-sxm5-80gb, gpus: 8}\n");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("give one of 'name' and 'megatron_args'"), std::string::npos)
      << e.error().message;
  std::ofstream(dir_ / "novocab.sh")
      << "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --position-embedding-type rope\n";
  e = Parse("model: {megatron_args: novocab.sh}\nhardware: {gpu: h100-sxm5-80gb, gpus: 8}\n");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("add model.vocab"), std::string::npos) << e.error().message;
  EXPECT_TRUE(
      Parse("model: {megatron_args: novocab.sh, vocab: 32000}\nhardware: {gpu: h100-sxm5-80gb, gpus: 8}\n")
          .ok());
}

}  // namespace
}  // namespace dlsim::io
