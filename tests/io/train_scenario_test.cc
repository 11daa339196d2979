// Unit tests of the training-scenario parser over small catalogs built in code (so the
// expectations do not move when the data files change).
#include "dlsim/io/train_scenario.h"

#include <gtest/gtest.h>

#include <string>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/stack_profiles.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/simulate.h"

namespace dlsim::io {
namespace {

hw::GpuSpec Gpu(std::string name, std::vector<std::string> aliases, double bf16, double fp8) {
  hw::GpuSpec g;
  g.name = std::move(name);
  g.aliases = std::move(aliases);
  g.dense_peak[static_cast<int>(hw::DType::kFp32)] = TFLOPS(60);
  g.dense_peak[static_cast<int>(hw::DType::kFp16)] = TFLOPS(bf16 > 0 ? bf16 : 125);
  g.dense_peak[static_cast<int>(hw::DType::kBf16)] = TFLOPS(bf16);
  g.dense_peak[static_cast<int>(hw::DType::kFp8)] = TFLOPS(fp8);
  g.hbm_capacity = GiB(80);
  g.hbm_bandwidth = GBps(3350);
  g.sm_count = 132;
  return g;
}

hw::Catalog TestHardware() {
  hw::Catalog c;
  EXPECT_TRUE(c.AddGpu(Gpu("h100-sxm5-80gb", {"h100", "h100-sxm"}, 989, 1979)).ok());
  EXPECT_TRUE(c.AddGpu(Gpu("a100-sxm4-80gb", {"a100"}, 312, 0)).ok());
  EXPECT_TRUE(c.AddGpu(Gpu("v100-sxm2-32gb", {"v100"}, 0, 0)).ok());
  for (const char* name : {"ib-ndr", "ib-hdr"}) {
    hw::NetworkSpec n;
    n.name = name;
    n.link_bandwidth = GBps(50);
    EXPECT_TRUE(c.AddNetwork(n).ok());
  }
  hw::NodeSpec node;
  node.name = "dgx-h100";
  node.gpu = "h100-sxm5-80gb";
  node.gpus_per_node = 8;
  node.intra_bandwidth = GBps(450);
  node.nics_per_node = 8;
  node.nic_bandwidth = GBps(50);  // 400 Gb/s
  node.network = "ib-ndr";
  EXPECT_TRUE(c.AddNode(node).ok());
  return c;
}

model::ModelCatalog TestModels() {
  model::ModelCatalog m;
  model::ModelSpec llama;
  llama.name = "llama3-8b";
  llama.layers = 32;
  llama.hidden = 4096;
  llama.heads = 32;
  llama.kv_heads = 8;
  llama.ffn_hidden = 14336;
  llama.vocab = 128256;
  llama.gated_mlp = true;
  EXPECT_TRUE(m.Add(llama).ok());
  model::ModelSpec gpt;
  gpt.name = "gpt-small";
  gpt.layers = 12;
  gpt.hidden = 768;
  gpt.heads = 12;
  gpt.kv_heads = 12;
  gpt.ffn_hidden = 3072;
  gpt.vocab = 50257;
  EXPECT_TRUE(m.Add(gpt).ok());
  return m;
}

class TrainScenarioTest : public ::testing::Test {
 protected:
  Result<train::TrainOptions> Parse(const std::string& yaml) {
    return ParseTrainScenario(yaml, "s.yaml", hardware_, models_);
  }
  // The error message of a scenario that must fail.
  std::string ErrorOf(const std::string& yaml) {
    auto r = Parse(yaml);
    EXPECT_FALSE(r.ok()) << yaml;
    return r.ok() ? "" : r.error().message;
  }
  hw::Catalog hardware_ = TestHardware();
  model::ModelCatalog models_ = TestModels();
};

constexpr char kBase[] =
    "model:\n"
    "  name: llama3-8b\n"
    "hardware:\n"
    "  node: dgx-h100\n"
    "  gpus: 16\n"
    "training:\n"
    "  seq_len: 8192\n"
    "  global_batch: 64\n"
    "parallel:\n"
    "  tp: 4\n"
    "  pp: 2\n";

TEST_F(TrainScenarioTest, NodeSetsHardwareDefaultsAndDpIsDerived) {
  auto r = Parse(kBase);
  ASSERT_TRUE(r.ok()) << r.error().message;
  const train::TrainOptions& o = *r;
  EXPECT_EQ(o.model.name, "llama3-8b");
  EXPECT_EQ(o.model.kv_heads, 8);
  EXPECT_EQ(o.hardware.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(o.hardware.node, "dgx-h100");
  EXPECT_EQ(o.hardware.gpus_per_node, 8);
  EXPECT_EQ(o.hardware.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(o.hardware.nic_gbps, 400);
  EXPECT_EQ(o.hardware.network, "ib-ndr");
  EXPECT_EQ(o.parallel.dp, 2);  // 16 / (4 * 2 * 1)
  EXPECT_EQ(o.training.micro_batch, 1);
  EXPECT_EQ(o.training.precision, hw::DType::kBf16);
  EXPECT_EQ(o.parallel.pipeline_schedule, train::PipelineScheduleKind::kOneFOneB);
  EXPECT_EQ(o.parallel.zero, 1);
  EXPECT_EQ(o.seed, 1u);
}

TEST_F(TrainScenarioTest, EmptySectionsTakeDefaults) {
  auto r = Parse("model:\n  name: gpt-small\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  train::TrainOptions defaults;
  EXPECT_EQ(r->hardware.gpu, defaults.hardware.gpu);
  EXPECT_EQ(r->hardware.gpus, defaults.hardware.gpus);
  EXPECT_EQ(r->training.seq_len, defaults.training.seq_len);
  EXPECT_EQ(r->parallel.dp, defaults.hardware.gpus);
}

TEST_F(TrainScenarioTest, AliasesAreCanonicalized) {
  auto r = Parse("model:\n  name: LLAMA3-8B\nhardware:\n  gpu: h100\n  network: IB-HDR\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model.name, "llama3-8b");
  EXPECT_EQ(r->hardware.gpu, "h100-sxm5-80gb");
  EXPECT_EQ(r->hardware.network, "ib-hdr");
}

TEST_F(TrainScenarioTest, ShapeKeysOverrideTheCatalog) {
  auto r = Parse("model:\n  name: llama3-8b\n  layers: 16\n  kv_heads: 4\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model.layers, 16);
  EXPECT_EQ(r->model.kv_heads, 4);
  EXPECT_EQ(r->model.ffn_hidden, 14336);  // not 4 * hidden: the catalog value stays
}

TEST_F(TrainScenarioTest, MhaModelKvHeadsAndFfnFollowOverrides) {
  auto r = Parse("model:\n  name: gpt-small\n  hidden: 1024\n  heads: 16\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model.kv_heads, 16);
  EXPECT_EQ(r->model.ffn_hidden, 4096);
}

TEST_F(TrainScenarioTest, CustomModelNeedsItsShape) {
  auto r = Parse("model:\n  layers: 4\n  hidden: 256\n  heads: 4\n  vocab: 1000\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->model.name, "custom");
  EXPECT_EQ(r->model.kv_heads, 4);
  EXPECT_EQ(r->model.ffn_hidden, 1024);
  EXPECT_EQ(
      ErrorOf("model:\n  layers: 4\n  hidden: 256\n  heads: 4\n"),
      "s.yaml:1:1: model: missing vocab: a model without 'name' must give layers, hidden, heads and vocab");
  EXPECT_EQ(
      ErrorOf("hardware:\n  gpus: 8\n"),
      "s.yaml:1:1: model: missing section: give 'name' (a catalog model, see 'dlsim catalog list') or the "
      "shape (layers, hidden, heads, vocab)");
}

TEST_F(TrainScenarioTest, UnknownNamesSuggest) {
  EXPECT_EQ(
      ErrorOf("model:\n  name: llama3-8\n"),
      "s.yaml:2:9: model.name: unknown model 'llama3-8' (did you mean 'llama3-8b'?); allowed: gpt-small, "
      "llama3-8b");
  EXPECT_EQ(
      ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpu: h100-sxm5-80g\n"),
      "s.yaml:4:8: hardware.gpu: unknown GPU 'h100-sxm5-80g' (did you mean 'h100-sxm5-80gb'?); allowed: "
      "a100-sxm4-80gb, h100-sxm5-80gb, v100-sxm2-32gb");
  EXPECT_NE(ErrorOf("model:\n  name: gpt-small\nhardware:\n  node: dgx-h10\n")
                .find("s.yaml:4:9: hardware.node: unknown node 'dgx-h10' (did you mean 'dgx-h100'?)"),
            std::string::npos);
}

TEST_F(TrainScenarioTest, LayoutMustMatchGpuCount) {
  std::string with_dp = std::string(kBase) + "  dp: 3\n";
  EXPECT_EQ(ErrorOf(with_dp),
            "s.yaml:12:7: parallel.dp: tp*pp*cp*dp = 4*2*1*3 = 24 GPUs, but hardware.gpus is 16");
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpus: 4\nparallel:\n  tp: 2\n  pp: 4\n"),
            "s.yaml:5:1: parallel: tp*pp*cp = 2*4*1 = 8 does not divide hardware.gpus = 4 "
            "(dp = gpus / (tp*pp*cp))");
}

TEST_F(TrainScenarioTest, SemanticErrorsPointAtTheirKey) {
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\nparallel:\n  tp: 8\n"),
            "s.yaml:4:7: parallel.tp: heads 12 of model gpt-small are not divisible by tp 8");
  EXPECT_EQ(
      ErrorOf("model:\n  name: gpt-small\ntraining:\n  global_batch: 12\n"),
      "s.yaml:4:17: training.global_batch: global_batch 12 is not divisible by micro_batch * dp = 1 * 8 = 8");
  EXPECT_EQ(
      ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpus: 12\ntraining:\n  global_batch: 24\n"),
      "s.yaml:4:9: hardware.gpus: gpus 12 is not a multiple of gpus_per_node 8 (a job larger than one node "
      "uses whole nodes)");
  EXPECT_EQ(
      ErrorOf("model:\n  name: gpt-small\nparallel:\n  pp: 2\n  virtual_stages: 2\n"),
      "s.yaml:5:19: parallel.virtual_stages: virtual_stages 2 needs pipeline_schedule: interleaved (found "
      "1f1b)");
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\n  hidden: 770\n"),
            "s.yaml:3:11: model.hidden: hidden 770 is not divisible by heads 12 (head_dim = hidden / heads)");
}

// parallel.cp_comm: the two K/V exchanges by Transformer Engine's names; anything else names the key and
// the choices.
TEST_F(TrainScenarioTest, CpCommReadsTheExchangeAndRejectsOthers) {
  auto r = Parse(std::string(kBase) + "  cp: 2\n  cp_comm: all_gather\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->parallel.cp_comm, train::CpComm::kAllGather);
  auto d = Parse(std::string(kBase) + "  cp: 2\n");
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->parallel.cp_comm, train::CpComm::kP2p);
  const std::string e = ErrorOf(std::string(kBase) + "  cp: 2\n  cp_comm: ring\n");
  EXPECT_NE(e.find("s.yaml:13:"), std::string::npos) << e;
  EXPECT_NE(e.find("cp_comm"), std::string::npos) << e;
  EXPECT_NE(e.find("all_gather"), std::string::npos) << e;
}

// parallel.moe_dispatcher: Megatron-Core's names; megatron-core-0.8 sets its argument default (allgather), a
// scenario key wins, and a bad name names the key and the choices.
TEST_F(TrainScenarioTest, MoeDispatcherFromTheStackOrTheScenario) {
  auto d = Parse(std::string(kBase));
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->parallel.moe_dispatcher, train::MoeDispatcher::kAllToAll);
  std::string megatron = kBase;
  megatron.insert(megatron.find("training:\n") + 10, "  stack: megatron-core-0.8\n");
  auto stack = Parse(megatron);
  ASSERT_TRUE(stack.ok()) << stack.error().message;
  EXPECT_EQ(stack->parallel.moe_dispatcher, train::MoeDispatcher::kAllGather);
  auto own = Parse(megatron + "  moe_dispatcher: alltoall\n");
  ASSERT_TRUE(own.ok()) << own.error().message;
  EXPECT_EQ(own->parallel.moe_dispatcher, train::MoeDispatcher::kAllToAll);
  auto hybrid = Parse(std::string(kBase) + "  moe_dispatcher: hybridep\n");
  ASSERT_TRUE(hybrid.ok()) << hybrid.error().message;
  EXPECT_EQ(hybrid->parallel.moe_dispatcher, train::MoeDispatcher::kHybridEp);
  const std::string e = ErrorOf(std::string(kBase) + "  moe_dispatcher: flex\n");
  EXPECT_NE(e.find("moe_dispatcher"), std::string::npos) << e;
  EXPECT_NE(e.find("allgather"), std::string::npos) << e;
  EXPECT_NE(e.find("hybridep"), std::string::npos) << e;
}

// MoE and MLA keys on a model without experts or latent attention were silently ignored (issue 35).
TEST_F(TrainScenarioTest, MoeAndMlaKeysOnADenseModelAreErrors) {
  const std::string top_k = ErrorOf("model:\n  name: gpt-small\n  top_k: 2\n");
  EXPECT_NE(top_k.find("model.top_k: only a mixture of experts uses it"), std::string::npos) << top_k;
  const std::string capacity = ErrorOf("model:\n  name: gpt-small\n  capacity_factor: 1.0e-9\n");
  EXPECT_NE(capacity.find("model.capacity_factor:"), std::string::npos) << capacity;
  const std::string mla = ErrorOf("model:\n  name: gpt-small\n  qk_rope_head_dim: 64\n");
  EXPECT_NE(mla.find("model.qk_rope_head_dim: only multi-head latent attention uses it"), std::string::npos)
      << mla;
  // The same keys on a model that has experts are read.
  EXPECT_TRUE(Parse("model:\n  name: gpt-small\n  experts: 8\n  top_k: 2\n").ok());
}

TEST_F(TrainScenarioTest, LayersPerStage) {
  const std::string head = "model:\n  name: gpt-small\nhardware:\n  gpus: 4\nparallel:\n  pp: 4\n";
  auto ok = Parse(head + "  layers_per_stage: [2, 4, 4, 2]\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->parallel.layers_per_stage, (std::vector<int>{2, 4, 4, 2}));
  // A default that does not fit says it is the default.
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpus: 16\n"),
            "s.yaml:1:1: training.global_batch: global_batch 8 is not divisible by micro_batch * dp = "
            "1 * 16 = 16 (training.global_batch not given: the default)");
  EXPECT_EQ(
      ErrorOf(head + "  layers_per_stage: [2, 4, 4, 3]\n"),
      "s.yaml:7:21: parallel.layers_per_stage: entries add up to 13 layers, but model gpt-small has 12");
  EXPECT_EQ(ErrorOf(head + "  layers_per_stage: [6, 6]\n"),
            "s.yaml:7:21: parallel.layers_per_stage: expected pp*virtual_stages = 4 entries, found 2");
}

TEST_F(TrainScenarioTest, PrecisionNeedsHardwareSupport) {
  EXPECT_EQ(
      ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpu: a100\ntraining:\n  precision: fp8\n"),
      "s.yaml:6:14: training.precision: fp8 needs tensor cores that a100-sxm4-80gb does not have; allowed "
      "on this GPU: bf16, fp16");
  EXPECT_NE(ErrorOf("model:\n  name: gpt-small\nhardware:\n  gpu: v100\n").find("bf16 needs tensor cores"),
            std::string::npos);
  auto fp8 = Parse("model:\n  name: gpt-small\ntraining:\n  precision: fp8\n");
  ASSERT_TRUE(fp8.ok()) << fp8.error().message;
  EXPECT_EQ(fp8->training.precision, hw::DType::kFp8);
}

TEST_F(TrainScenarioTest, TypeErrorsAreAllReportedInFileOrder) {
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\nparallel:\n  zero: 4\n  tp: four\n"),
            "s.yaml:4:9: parallel.zero: expected an integer, found '4'; allowed: 0..3\n"
            "s.yaml:5:7: parallel.tp: expected an integer, found 'four'; allowed: 1..1048576");
}

TEST_F(TrainScenarioTest, SummaryNamesTheResolvedLayout) {
  auto r = Parse(kBase);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(
      SummarizeTrainOptions(*r),
      "llama3-8b on 16 x h100-sxm5-80gb (dgx-h100, 8 per node, ib-ndr); tp 4 pp 2 cp 1 dp 2; 1f1b; zero 1; "
      "recompute none; seq 8192, global batch 64, micro batch 1, bf16");
}

TEST_F(TrainScenarioTest, MissingFileNamesThePath) {
  auto r = LoadTrainScenarioFile("/no/such/scenario.yaml", hardware_, models_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("/no/such/scenario.yaml"), std::string::npos);
}

// training.stack (data/catalog/stacks.yaml): the profile's defaults, overridden by explicit keys.
// kBase with `training.stack: name`.
std::string WithStack(const std::string& name) {
  std::string yaml = kBase;
  yaml.insert(yaml.find("training:\n") + 10, "  stack: " + name + "\n");
  return yaml;
}

// `yaml` with `keys` (indented lines) inserted at the top of its `section`.
std::string WithKeys(std::string yaml, const std::string& section, const std::string& keys) {
  yaml.insert(yaml.find(section + ":\n") + section.size() + 2, keys);
  return yaml;
}

// training.norm_impl (issue 32, memory fidelity): read under eager kernels, an error at its key otherwise.
TEST_F(TrainScenarioTest, NormImplNeedsEagerKernels) {
  auto r = Parse(WithKeys(WithStack("pytorch-eager-bf16"), "training", "  norm_impl: python-fp32\n"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->training.norm_impl, model::NormImpl::kPythonFp32);
  auto bad = Parse(WithKeys(kBase, "training", "  norm_impl: python-fp32\n"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("training.norm_impl"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("kernels: eager"), std::string::npos) << bad.error().message;
}

// parallel.reshard_after_forward (FSDP2's argument): only with ZeRO-3, an error at its key otherwise (and
// defer_grad_reduce only with ZeRO-2/3);
// training.head_kernels: unset follows kernels, the torchtitan stack sets it eager.
TEST_F(TrainScenarioTest, ReshardAfterForwardNeedsZero3AndHeadKernelsParse) {
  auto r = Parse(WithKeys(kBase, "parallel", "  zero: 3\n  reshard_after_forward: false\n"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->parallel.keep_gathered, train::Pipelined::kYes);
  EXPECT_FALSE(r->training.head_kernels.has_value());
  auto e = Parse(WithKeys(kBase, "parallel", "  zero: 1\n  reshard_after_forward: false\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("parallel.reshard_after_forward"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("zero: 3"), std::string::npos) << e.error().message;
  auto d = Parse(WithKeys(kBase, "parallel", "  zero: 1\n  defer_grad_reduce: true\n"));
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.error().message.find("parallel.defer_grad_reduce"), std::string::npos) << d.error().message;
  auto tt = Parse(WithStack("torchtitan-2024.12"));
  ASSERT_TRUE(tt.ok()) << tt.error().message;
  ASSERT_TRUE(tt->training.head_kernels.has_value());
  EXPECT_EQ(*tt->training.head_kernels, model::Kernels::kEager);
  EXPECT_EQ(tt->training.kernels, model::Kernels::kFused);
  // torchtitan keeps FSDP2's gathered weights and unsharded gradients only under pipeline parallelism.
  EXPECT_EQ(tt->parallel.keep_gathered, train::Pipelined::kWhenPipelined);
  EXPECT_EQ(tt->parallel.defer_grad_reduce, train::Pipelined::kWhenPipelined);
  EXPECT_TRUE(train::KeepsGatheredWeights(tt->parallel));  // kBase has pp 2
  EXPECT_TRUE(train::DefersGradReduce(tt->parallel));
}

// tp_comm_overlap: false / true (Transformer Engine's userbuffers, also by name) / async-tp (PyTorch's
// AsyncTP); any other value is an error at the key that lists them.
TEST_F(TrainScenarioTest, TpCommOverlapNamesItsImplementation) {
  const std::pair<const char*, train::TpOverlap> cases[] = {{"false", train::TpOverlap::kNone},
                                                            {"true", train::TpOverlap::kUserbuffers},
                                                            {"userbuffers", train::TpOverlap::kUserbuffers},
                                                            {"async-tp", train::TpOverlap::kAsyncTp}};
  for (const auto& [name, value] : cases) {
    auto r = Parse(WithKeys(kBase, "parallel", std::string("  tp_comm_overlap: ") + name + "\n"));
    ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
    EXPECT_EQ(r->parallel.tp_comm_overlap, value) << name;
  }
  auto e = Parse(WithKeys(kBase, "parallel", "  tp_comm_overlap: asynctp\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("parallel.tp_comm_overlap"), std::string::npos) << e.error().message;
  EXPECT_NE(e.error().message.find("async-tp"), std::string::npos) << e.error().message;
}

// sharding: flat (the default) / fsdp2 (torchtitan's stack sets it); overlap_contention: the measured
// default, a share in [0, 1] otherwise, and either key's bad value is an error at the key.
TEST_F(TrainScenarioTest, ShardingAndContentionKeys) {
  auto d = Parse(kBase);
  ASSERT_TRUE(d.ok()) << d.error().message;
  EXPECT_EQ(d->parallel.sharding, train::Sharding::kFlat);
  EXPECT_DOUBLE_EQ(d->parallel.overlap_contention, train::kOverlapContention);
  auto r = Parse(WithKeys(kBase, "parallel", "  zero: 3\n  sharding: fsdp2\n  overlap_contention: 0\n"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->parallel.sharding, train::Sharding::kFsdp2);
  EXPECT_EQ(r->parallel.overlap_contention, 0.0);
  auto titan = Parse(WithStack("torchtitan-2024.12"));
  ASSERT_TRUE(titan.ok()) << titan.error().message;
  EXPECT_EQ(titan->parallel.sharding, train::Sharding::kFsdp2);
  EXPECT_EQ(d->parallel.grad_reduce, train::GradReduce::kSharded);
  EXPECT_FALSE(d->parallel.p2p_blocking);
  EXPECT_EQ(d->training.grad_accumulation, train::GradAccumulation::kFused);
  auto e = Parse(WithKeys(kBase, "parallel", "  grad_reduce: allreduce\n"));
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("parallel.grad_reduce"), std::string::npos) << e.error().message;
  for (const char* bad :
       {"  sharding: fsdp\n", "  overlap_contention: 1.5\n", "  overlap_contention: -0.1\n"}) {
    auto e = Parse(WithKeys(kBase, "parallel", bad));
    ASSERT_FALSE(e.ok()) << bad;
    const std::string key = std::string(bad).find("sharding") != std::string::npos
                                ? "parallel.sharding"
                                : "parallel.overlap_contention";
    EXPECT_NE(e.error().message.find(key), std::string::npos) << e.error().message;
  }
}

TEST_F(TrainScenarioTest, StackSetsTheRecipeDefaults) {
  auto r = Parse(WithStack("nemo-24.07"));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->parallel.zero, 1);
  EXPECT_TRUE(r->parallel.overlap_grad_reduce);
  EXPECT_TRUE(r->parallel.overlap_param_gather);
  EXPECT_EQ(r->parallel.tp_comm_overlap, train::TpOverlap::kUserbuffers);
  EXPECT_TRUE(r->parallel.sequence_parallel);
  EXPECT_EQ(r->parallel.recompute, train::Recompute::kSelective);
  EXPECT_EQ(r->training.grad_dtype, hw::DType::kBf16);
  EXPECT_EQ(r->parallel.tp, 4);
  auto core = Parse(WithStack("megatron-core-0.8"));
  ASSERT_TRUE(core.ok()) << core.error().message;
  EXPECT_EQ(core->parallel.zero, 0);
  EXPECT_FALSE(core->parallel.overlap_grad_reduce);
  EXPECT_EQ(core->parallel.tp_comm_overlap, train::TpOverlap::kNone);
  EXPECT_EQ(core->training.grad_dtype, hw::DType::kFp32);
  auto titan = Parse(WithStack("torchtitan-2024.12"));
  ASSERT_TRUE(titan.ok()) << titan.error().message;
  EXPECT_EQ(titan->parallel.zero, 3);
  EXPECT_EQ(titan->parallel.tp_comm_overlap, train::TpOverlap::kNone);
  EXPECT_TRUE(titan->parallel.sequence_parallel);
  EXPECT_EQ(titan->training.grad_dtype, hw::DType::kFp32);
  auto bloom = Parse(WithStack("megatron-deepspeed-bigscience"));
  ASSERT_TRUE(bloom.ok()) << bloom.error().message;
  EXPECT_EQ(bloom->parallel.zero, 1);
  EXPECT_TRUE(bloom->parallel.p2p_blocking);
  EXPECT_EQ(bloom->parallel.grad_reduce, train::GradReduce::kAllReduce);
  EXPECT_EQ(bloom->training.grad_accumulation, train::GradAccumulation::kCastAdd);
  EXPECT_FALSE(bloom->parallel.overlap_grad_reduce);
  EXPECT_EQ(bloom->parallel.recompute, train::Recompute::kFull);
  EXPECT_EQ(bloom->training.attention, model::AttentionImpl::kUnfused);
}

TEST_F(TrainScenarioTest, ExplicitKeysOverrideTheStack) {
  auto r = Parse(WithStack("nemo-24.07") + "  tp_comm_overlap: false\n  recompute: full\n  zero: 0\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->parallel.tp_comm_overlap, train::TpOverlap::kNone);
  EXPECT_EQ(r->parallel.recompute, train::Recompute::kFull);
  EXPECT_EQ(r->parallel.zero, 0);
  EXPECT_TRUE(r->parallel.overlap_grad_reduce);  // not given: the stack's
}

TEST_F(TrainScenarioTest, UnknownStackIsALocatedErrorListingTheKnownOnes) {
  EXPECT_EQ(ErrorOf("model:\n  name: gpt-small\ntraining:\n  stack: nemo-24.7\n"),
            "s.yaml:4:10: training.stack: unknown stack 'nemo-24.7' (did you mean 'nemo-24.07'?); allowed: "
            "megatron-core-0.8, nemo-24.07, torchtitan-2024.12, megatron-deepspeed-bigscience, "
            "deepspeed-zero1, deepspeed-zero2, deepspeed-zero3, pytorch-eager-bf16, pytorch-eager-autocast, "
            "accelerate-fsdp1, pytorch-compile-bf16, pytorch-compile-autocast");
}

TEST(StackProfilesTest, EverySettingOfEveryStackHasASource) {
  const std::vector<std::string> names = StackNames();
  EXPECT_EQ(names, (std::vector<std::string>{"megatron-core-0.8", "nemo-24.07", "torchtitan-2024.12",
                                             "megatron-deepspeed-bigscience", "deepspeed-zero1",
                                             "deepspeed-zero2", "deepspeed-zero3", "pytorch-eager-bf16",
                                             "pytorch-eager-autocast", "accelerate-fsdp1",
                                             "pytorch-compile-bf16", "pytorch-compile-autocast"}));
  for (const std::string& name : names) {
    auto settings = DescribeStack(name);
    ASSERT_TRUE(settings.ok()) << settings.error().message;
    EXPECT_GE(settings->size(), 4u) << name;
    for (const auto& s : *settings) EXPECT_FALSE(s.source.empty()) << name << " " << s.key;
  }
  EXPECT_FALSE(DescribeStack("nemo").ok());
}

// A stack's measured host time replaces the shipped one for scenarios naming it (and only them), and a
// user's calibration that sets its own host time wins over the stack's.
TEST(StackProfilesTest, StackHostTimeReachesTheStepUnlessTheUserCalibratedOne) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const std::string base =
      "model: {name: llama3-8b}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n"
      "training: {seq_len: 2048, global_batch: 1, micro_batch: 1";
  auto plain = ParseTrainScenario(base + "}\nparallel: {zero: 0}\n", "s.yaml", cat->hardware, cat->models);
  auto eager =
      ParseTrainScenario(base + ", stack: pytorch-eager-bf16}\n", "s.yaml", cat->hardware, cat->models);
  ASSERT_TRUE(plain.ok() && eager.ok()) << (plain.ok() ? eager.error().message : plain.error().message);
  ASSERT_TRUE(eager->training.stack_layer_host_us.has_value());
  EXPECT_EQ(*eager->training.stack_layer_host_us, 622);
  EXPECT_EQ(eager->training.recipe, train::Recipe::kBf16);
  auto ctx = train::MakeStepContext(*eager, *cat);
  ASSERT_TRUE(ctx.ok());
  EXPECT_NEAR((*ctx)->ctx.layer_host_time.ToMicros(), 622, 1e-6);
  auto shipped = train::MakeStepContext(*plain, *cat);
  EXPECT_NEAR((*shipped)->ctx.layer_host_time.ToMicros(), cat->training.layer_host_time->ToMicros(), 1e-6);
  catalog::Catalogs mine = *cat;
  cost::TrainingCalibration user;
  user.source = "mine.yaml";
  user.layer_host_time = Seconds(100e-6);
  mine.training = cost::Overlay(mine.training, user);
  auto calibrated = train::MakeStepContext(*eager, mine);
  EXPECT_NEAR((*calibrated)->ctx.layer_host_time.ToMicros(), 100, 1e-6);
}

// training.attention_backend: the eager stacks price SDPA's default family on the GPU (cuDNN's kernel on
// Hopper, the architecture's fitted kernel where no default was measured); a family that is not a name, or
// one given with unfused attention, is a located error.
TEST(StackProfilesTest, EagerStacksPriceSdpasDefaultAttentionFamily) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto attention_s = [&](const std::string& gpu, const std::string& extra) {
    const std::string yaml = "model: {name: llama3-8b}\nhardware: {gpu: " + gpu +
                             ", gpus: 1, gpus_per_node: 1}\ntraining: {seq_len: 4096, global_batch: 1, "
                             "micro_batch: 1, stack: pytorch-eager-bf16" +
                             extra + "}\n";
    auto o = ParseTrainScenario(yaml, "s.yaml", cat->hardware, cat->models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    auto r = train::Simulate(*o, *cat, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r->breakdown.attention_s;
  };
  auto eager = ParseTrainScenario("model: {name: llama3-8b}\ntraining: {stack: pytorch-eager-autocast}\n",
                                  "s.yaml", cat->hardware, cat->models);
  ASSERT_TRUE(eager.ok()) << eager.error().message;
  EXPECT_EQ(eager->training.attention_backend, cost::AttentionBackend::kPytorchDefault);
  EXPECT_EQ(attention_s("h200", ""), attention_s("h200", ", attention_backend: cudnn"));
  EXPECT_LT(attention_s("h200", ""), 0.8 * attention_s("h200", ", attention_backend: model"));
  // On the A100 SDPA's default is FlashAttention-2, priced from FlashAttention's published A100 figure
  // (data/calibration/attention_backends_a100.yaml), no longer Ampere's own constants.
  EXPECT_EQ(attention_s("a100", ""), attention_s("a100", ", attention_backend: flash"));
  EXPECT_NE(attention_s("a100", ""), attention_s("a100", ", attention_backend: model"));
  auto bad = ParseTrainScenario("model: {name: llama3-8b}\ntraining:\n  attention_backend: fa3\n", "s.yaml",
                                cat->hardware, cat->models);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("s.yaml:3:22: training.attention_backend"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("cudnn"), std::string::npos) << bad.error().message;
  auto unfused = ParseTrainScenario(
      "model: {name: llama3-8b}\ntraining:\n  attention: unfused\n  attention_backend: cudnn\n", "s.yaml",
      cat->hardware, cat->models);
  ASSERT_FALSE(unfused.ok());
  EXPECT_NE(unfused.error().message.find("attention is unfused"), std::string::npos)
      << unfused.error().message;
}

// A stack's measured kernel rates (stacks.yaml `calibration:`) reach the step on their architecture, sit
// under a user's calibration; the optimizer runs at the rate the stack's traces measured (0.587 of HBM
// bandwidth in pure bf16, scripts/trace-optimizer-rate.py), not the kernel-level 1.0.
TEST(StackProfilesTest, StackKernelRatesSitUnderTheCalibrations) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto o = ParseTrainScenario(
      "model: {name: llama3-8b}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n"
      "training: {seq_len: 2048, global_batch: 1, stack: pytorch-eager-bf16}\n",
      "s.yaml", cat->hardware, cat->models);
  ASSERT_TRUE(o.ok()) << o.error().message;
  ASSERT_EQ(o->training.stack_calibration.size(), 1u);
  EXPECT_EQ(o->training.stack_calibration[0].architecture, "hopper");
  EXPECT_EQ(o->training.stack_calibration[0].elementwise_efficiency, 0.5452);
  auto breakdown = [](const train::TrainOptions& t, const catalog::Catalogs& c) {
    auto r = train::Simulate(t, c, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r->breakdown;
  };
  const train::Breakdown with = breakdown(*o, *cat);
  train::TrainOptions bare = *o;
  bare.training.stack_calibration.clear();
  const train::Breakdown without = breakdown(bare, *cat);
  EXPECT_GT(with.memory_s, 1.5 * without.memory_s);
  EXPECT_NEAR(with.optimizer_s / without.optimizer_s, 1 / 0.587, 0.01);
  // The in-stream GEMM rate the traces measured (0.8130 of peak) over the isolated curve's 0.7623: the 8B's
  // GEMMs are large, so nearly the whole ratio shows.
  EXPECT_NEAR(with.gemm_s / without.gemm_s, 0.7623 / 0.8130, 0.01);
  EXPECT_LT(with.attention_s, without.attention_s);  // cuDNN's in-stream rate above its isolated one
  catalog::Catalogs mine = *cat;
  cost::TrainingCalibration user;
  user.source = "mine.yaml";
  user.archs.push_back({.architecture = "hopper", .elementwise_efficiency = 1.0});
  mine.training = cost::Overlay(mine.training, user);
  EXPECT_EQ(breakdown(*o, mine).memory_s, without.memory_s);
}

// Autocast casts the weights the linears use, not an input embedding table that is only looked up: a model
// with an untied head casts as much as the same model tied (the head's matrix either way), though it holds
// one more table; its optimizer steps over both. One micro-batch: a second would add autograd's accumulation
// of every gradient, the looked-up table's included
// (StepModelTest.AutogradAccumulatesEveryMicroBatchAfterTheFirst).
TEST(StackProfilesTest, AutocastCastsTheLinearsWeightsNotTheLookupTable) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto breakdown = [&](bool tied) {
    auto o = ParseTrainScenario(std::string("model: {name: llama3-8b, tied_embeddings: ") +
                                    (tied ? "true" : "false") +
                                    "}\nhardware: {gpu: h200, gpus: 1}\n"
                                    "training: {seq_len: 2048, global_batch: 1, micro_batch: 1, stack: "
                                    "pytorch-eager-autocast}\n",
                                "s.yaml", cat->hardware, cat->models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    auto r = train::Simulate(*o, *cat, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r->breakdown;
  };
  const train::Breakdown untied = breakdown(false), tied = breakdown(true);
  EXPECT_GT(untied.cast_s, 0);
  EXPECT_NEAR(untied.cast_s, tied.cast_s, 1e-9);
  EXPECT_GT(untied.optimizer_s - untied.cast_s, tied.optimizer_s - tied.cast_s);
}

// Accelerate's FSDP1 stack: FULL_SHARD with bf16 MixedPrecision (bf16 gathers and reductions over fp32
// shards), eager kernels and the measured eager host time. On 8 GPUs it holds about an eighth of the
// training state of one unsharded replica.
TEST(StackProfilesTest, AccelerateFsdp1ShardsEverythingAndRunsEager) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto parse = [&](const std::string& stack, int gpus) {
    auto o = ParseTrainScenario(
        "model: {name: qwen2.5-0.5b}\nhardware: {gpu: h200, gpus: " + std::to_string(gpus) +
            "}\ntraining: {seq_len: 2048, global_batch: " + std::to_string(gpus) + ", stack: " + stack +
            "}\n",
        "s.yaml", cat->hardware, cat->models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    return *o;
  };
  const train::TrainOptions o = parse("accelerate-fsdp1", 8);
  EXPECT_EQ(o.parallel.zero, 3);
  EXPECT_EQ(o.training.recipe, train::Recipe::kMixed);
  EXPECT_EQ(o.training.grad_dtype, hw::DType::kBf16);
  EXPECT_EQ(o.training.kernels, model::Kernels::kEager);
  auto fsdp = train::Simulate(o, *cat, nullptr);
  auto single = train::Simulate(parse("accelerate-fsdp1", 1), *cat, nullptr);
  ASSERT_TRUE(fsdp.ok() && single.ok());
  ASSERT_TRUE(fsdp->feasible && single->feasible) << fsdp->reason;
  auto state = [](const train::StepResult& r) {
    return (r.memory[0].weights + r.memory[0].gradients + r.memory[0].optimizer).ToBytes();
  };
  EXPECT_LT(state(*fsdp), 0.2 * state(*single));
}

// DeepSpeed's ZeRO stacks set what its configuration defaults to: the stage's sharding, and overlap_comm on
// only at stage 3 (config.py's validator), where parameters are also prefetched; so at 8 GPUs a ZeRO-2 step
// exposes its gradient reduction and a ZeRO-3 step hides it.
TEST(StackProfilesTest, DeepSpeedStacksFollowTheConfigDefaults) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto parse = [&](int stage) {
    auto o = ParseTrainScenario(
        "model: {name: llama3-8b}\nhardware: {gpu: h100, gpus: 8}\n"
        "training: {seq_len: 4096, global_batch: 16, stack: deepspeed-zero" +
            std::to_string(stage) + "}\n",
        "s.yaml", cat->hardware, cat->models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    return *o;
  };
  for (int stage : {1, 2, 3}) {
    const train::TrainOptions o = parse(stage);
    EXPECT_EQ(o.parallel.zero, stage);
    EXPECT_EQ(o.parallel.overlap_grad_reduce, stage == 3) << stage;
    EXPECT_EQ(o.parallel.overlap_param_gather, stage == 3) << stage;
  }
  auto two = train::Simulate(parse(2), *cat, nullptr);
  auto three = train::Simulate(parse(3), *cat, nullptr);
  ASSERT_TRUE(two.ok() && three.ok());
  EXPECT_GT(two->breakdown.dp_comm_s, 2 * three->breakdown.dp_comm_s);
}

// The compiled stacks: the fused operator graph, the eager stacks' measured GEMM, attention and optimizer
// rates, and a host time of 11 launches x the H200 host's measured 8.95 us per launch. A host-bound step (a
// 0.5B model, 1 x 1,024 tokens) is far faster compiled than eager; a GPU-bound one (8B, 4,096 tokens) barely
// moves.
TEST(StackProfilesTest, CompiledStacksFuseKernelsAndIssueLayersFaster) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto step = [&](const std::string& model, int seq, const std::string& stack) {
    auto o = ParseTrainScenario(
        "model: {name: " + model + "}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1}\n" +
            "training: {seq_len: " + std::to_string(seq) + ", global_batch: 1, stack: " + stack + "}\n",
        "s.yaml", cat->hardware, cat->models);
    EXPECT_TRUE(o.ok()) << o.error().message;
    if (stack.find("compile") != std::string::npos) {
      EXPECT_EQ(o->training.kernels, model::Kernels::kFused);
      EXPECT_NEAR(o->training.stack_layer_host_us.value_or(0), 11 * 8.946, 0.05);
    }
    auto r = train::Simulate(*o, *cat, nullptr);
    EXPECT_TRUE(r.ok()) << r.error().message;
    return r.ok() ? r->step_time_s : 0.0;
  };
  const double eager_small = step("qwen2.5-0.5b", 1024, "pytorch-eager-bf16");
  const double compiled_small = step("qwen2.5-0.5b", 1024, "pytorch-compile-bf16");
  EXPECT_LT(compiled_small, 0.5 * eager_small);
  const double eager_big = step("llama3-8b", 4096, "pytorch-eager-bf16");
  const double compiled_big = step("llama3-8b", 4096, "pytorch-compile-bf16");
  EXPECT_LT(compiled_big, eager_big);  // fused memory-bound work
  EXPECT_GT(compiled_big, 0.6 * eager_big);
}

// hardware.sm_clock_mhz (a clock locked with nvidia-smi -lgc): the arithmetic slows by the clock's share of
// the clock the rates held at (the H200's sustained full-load clock, at most 1830 MHz: catalog
// sustained_sm_clock_mhz), the memory-bound kernels do not; the key comes back in the resolved scenario; a
// clock above the part's maximum, or on a part whose maximum the catalog does not give, is a located error.
TEST(LockedSmClock, SlowsTheArithmeticNotTheMemory) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  const std::string base =
      "model: {name: llama3-8b}\ntraining: {seq_len: 4096, global_batch: 1, micro_batch: 1}\n"
      "parallel: {zero: 0}\nhardware: {gpu: h200, gpus: 1, gpus_per_node: 1";
  auto free = ParseTrainScenario(base + "}\n", "s.yaml", cat->hardware, cat->models);
  auto locked = ParseTrainScenario(base + ", sm_clock_mhz: 1500}\n", "s.yaml", cat->hardware, cat->models);
  ASSERT_TRUE(free.ok() && locked.ok()) << (free.ok() ? locked.error().message : free.error().message);
  EXPECT_EQ(locked->hardware.sm_clock_mhz, 1500.0);
  auto a = train::Simulate(*free, *cat, nullptr);
  auto b = train::Simulate(*locked, *cat, nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  const double share = 1830.0 / 1500.0;
  // Every large GEMM and the flash attention are compute-bound at 4,096 tokens; a few small ones are not.
  EXPECT_GT(b->breakdown.gemm_s / a->breakdown.gemm_s, 1.18);
  EXPECT_LE(b->breakdown.gemm_s / a->breakdown.gemm_s, share + 1e-9);
  EXPECT_NEAR(b->breakdown.attention_s / a->breakdown.attention_s, share, 0.02);
  EXPECT_NEAR(b->breakdown.memory_s / a->breakdown.memory_s, 1.0, 0.01);
  EXPECT_DOUBLE_EQ(b->mfu * b->step_time_s, a->mfu * a->step_time_s);  // MFU against the datasheet peak
  const std::string yaml = FormatTrainScenarioYaml(*locked, "");
  EXPECT_NE(yaml.find("sm_clock_mhz: 1500"), std::string::npos) << yaml;
  auto again = ParseTrainScenario(yaml, "r.yaml", cat->hardware, cat->models);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->hardware.sm_clock_mhz, 1500.0);
}

TEST(LockedSmClock, ClocksThePartCannotRunAreLocatedErrors) {
  auto cat = LoadCatalogs({});
  ASSERT_TRUE(cat.ok());
  auto parse = [&](const std::string& hw) {
    return ParseTrainScenario("model: {name: llama3-8b}\nhardware:\n  gpus: 1\n" + hw, "s.yaml",
                              cat->hardware, cat->models);
  };
  auto above = parse("  gpu: h200\n  sm_clock_mhz: 2100\n");
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.error().message.find("s.yaml:5"), std::string::npos) << above.error().message;
  EXPECT_NE(above.error().message.find("sm_clock_mhz"), std::string::npos) << above.error().message;
  EXPECT_NE(above.error().message.find("(0, 1980] MHz"), std::string::npos) << above.error().message;
  auto unknown = parse("  gpu: h100-hbm2e-96gb\n  sm_clock_mhz: 1500\n");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("no maximum SM clock for GPU 'h100-hbm2e-96gb'"), std::string::npos)
      << unknown.error().message;
  for (const char* bad : {"  gpu: h200\n  sm_clock_mhz: 0\n", "  gpu: h200\n  sm_clock_mhz: fast\n"}) {
    auto r = parse(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.error().message.find("sm_clock_mhz"), std::string::npos) << r.error().message;
  }
  // Options built without the YAML reader (Python, sweeps) meet the same check when the step is priced.
  train::TrainOptions o = *parse("  gpu: h200\n");
  o.hardware.sm_clock_mhz = 2500;
  auto r = train::Simulate(o, *cat, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("hardware.sm_clock_mhz"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace dlsim::io
