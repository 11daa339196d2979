// Unit tests of the serving-scenario parser over the embedded catalogs: derived values, the shape
// rules shared with training, and data-file values checked like scenario values.
#include "dlsim/io/serve_scenario.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/serve/simulate.h"

namespace dlsim::io {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(LoadCatalogs({}).value());
  return *c;
}

const ServeNames kNames{{"distserve", "orca", "sarathi", "vllm"},
                        {"least-outstanding-tokens", "round-robin"}};

Result<serve::ServeOptions> Parse(const std::string& yaml, const std::string& base_dir = "") {
  return ParseServeScenario(yaml, "s.yaml", Cat().hardware, Cat().models, kNames, base_dir);
}

std::string ErrorOf(const std::string& yaml, const std::string& base_dir = "") {
  auto r = Parse(yaml, base_dir);
  return r.ok() ? "" : r.error().message;
}

// DistServe's pools are the deployment: replicas is their sum (the header said "on 1 x" for 5 + 5).
TEST(ServeScenarioTest, DistServeReplicasAreThePools) {
  auto r = Parse(
      "model: {name: llama2-7b}\nscheduler: {name: distserve, prefill_replicas: 2, decode_replicas: 3}\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->hardware.replicas, 5);
  EXPECT_TRUE(
      Parse("model: {name: llama2-7b}\nhardware: {replicas: 2}\nscheduler: {name: distserve}\n").ok());
}

// hardware.mig: each instance of the partition is a replica priced as the instance.
TEST(ServeScenarioTest, MigPartitionInstancesAreReplicas) {
  auto r = Parse("model: {name: llama2-7b}\nhardware: {mig: [3g.40gb, 3g.40gb], replicas: 2}\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->hardware.replicas, 4);
  EXPECT_EQ(r->gpu.name, "a100-sxm4-80gb/3g.40gb");
  EXPECT_EQ(r->gpu.sm_count, 42);
  EXPECT_DOUBLE_EQ(r->gpu.hbm_capacity.ToGiB(), 39.25);
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nhardware: {mig: [4g.40gb, 4g.40gb]}\n")
                .find("s.yaml:2:17: hardware.mig: 2 instances of 4g.40gb"),
            std::string::npos)
      << ErrorOf("model: {name: llama2-7b}\nhardware: {mig: [4g.40gb, 4g.40gb]}\n");
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nhardware: {mig: [4g.40gb, 3g.40gb]}\n").find("one profile"),
            std::string::npos);
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nhardware: {mig: [3g.40gb], tp: 2}\n").find("tp 1"),
            std::string::npos);
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nhardware: {mig: [5g.50gb]}\n").find("known: 1g.10gb"),
            std::string::npos);
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nhardware: {gpu: l4, mig: [1g.6gb]}\n").find("no MIG"),
            std::string::npos);
}

TEST(ServeScenarioTest, WeightSparsityIsReadAndBounded) {
  auto r = Parse("model: {name: opt-30b, weight_sparsity: 0.8}\n");
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_DOUBLE_EQ(r->weight_sparsity, 0.8);
  EXPECT_NE(ErrorOf("model: {name: opt-30b, weight_sparsity: 1.0}\n").find("model.weight_sparsity"),
            std::string::npos);
}

// One set of shape rules (model::ModelSpec::ShapeIssues): both readers say the same at the same key.
TEST(ServeScenarioTest, ModelShapeErrorsMatchTrain) {
  const std::string model = "model:\n  name: llama2-7b\n  kv_heads: 5\n";
  auto train = ParseTrainScenario(model, "s.yaml", Cat().hardware, Cat().models);
  ASSERT_FALSE(train.ok());
  const std::string serve = ErrorOf(model);
  EXPECT_EQ(serve, train.error().message);
  EXPECT_EQ(
      serve,
      "s.yaml:3:13: model.kv_heads: heads 32 is not a multiple of kv_heads 5 (each key/value head serves a "
      "whole group of query heads)");
}

// A value outside its range is one error; the cross-checks (value within min..max) do not repeat it.
TEST(ServeScenarioTest, OutOfRangeValueIsOneError) {
  EXPECT_EQ(
      ErrorOf("model: {name: llama2-7b}\nworkload:\n  prompt_tokens: {distribution: fixed, value: nan}\n"),
      "s.yaml:3:47: workload.prompt_tokens.value: expected a number, found 'nan'; allowed: 1..16777216 "
      "(token counters are 32-bit; file an issue for longer requests)");
}

std::string WriteFile(const std::string& name, const std::string& text) {
  std::ofstream(::testing::TempDir() + "/" + name) << text;
  return ::testing::TempDir();
}

// Trace values become requests exactly; a bad cell names the trace's line and column.
TEST(ServeScenarioTest, TraceValuesAreCheckedAndKept) {
  const std::string dir =
      WriteFile("good_trace.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,100,10\n1.5,2048,1\n");
  auto r = Parse("model: {name: llama2-7b}\nworkload: {arrival: trace, trace_file: good_trace.csv}\n", dir);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->workload.trace.size(), 2u);
  EXPECT_DOUBLE_EQ(r->workload.trace[1].arrival_s, 1.5);
  EXPECT_EQ(r->workload.trace[1].prompt_tokens, 2048);
  EXPECT_EQ(r->workload.trace[1].output_tokens, 1);
  WriteFile("bad_trace.csv", "arrived_at,num_prefill_tokens,num_decode_tokens\n0,100,10\n1,  -7,10\n");
  const std::string e =
      ErrorOf("model: {name: llama2-7b}\nworkload: {arrival: trace, trace_file: bad_trace.csv}\n", dir);
  EXPECT_EQ(e.rfind("s.yaml:2:40: workload.trace_file: ", 0), 0u) << e;
  EXPECT_NE(
      e.find("bad_trace.csv:3:5: column 'num_prefill_tokens': expected an integer, found '-7'; allowed: "
             "1..16777216"),
      std::string::npos)
      << e;
}

// requests / rate and rate x duration_s are checked together: the arrivals fit the clock and the limit.
TEST(ServeScenarioTest, ArrivalVolumeIsBounded) {
  EXPECT_NE(ErrorOf("model: {name: llama2-7b}\nworkload: {rate: 0.0001, requests: 1000000}\n")
                .find("s.yaml:2:18: workload.rate: 1e+06 requests at 0.0001 req/s arrive over about 1e+10 s"),
            std::string::npos);
  EXPECT_TRUE(Parse("model: {name: llama2-7b}\nworkload: {rate: 0.0001, requests: 10000}\n").ok());
  EXPECT_TRUE(Parse("model: {name: llama2-7b}\nworkload: {rate: 100, duration_s: 100000}\n").ok());
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

// engine: names a profile (the closest name on a typo) and sets its scheduler defaults, which the
// scenario's own scheduler keys override.
TEST(ServeScenarioEngine, ProfileSetsSchedulerDefaults) {
  auto parse = [](const std::string& yaml) { return Parse(yaml); };
  auto v1 = parse("model: {name: llama2-7b}\nengine: vllm-v1\n");
  ASSERT_TRUE(v1.ok()) << v1.error().message;
  EXPECT_EQ(v1->engine, "vllm-v1");
  EXPECT_EQ(v1->scheduler.name, "sarathi");
  EXPECT_EQ(v1->scheduler.max_batch_size, 1024);
  EXPECT_EQ(v1->scheduler.chunk_size, 8192);
  auto v06 = parse("model: {name: llama2-7b}\nengine: vllm-0.6\nscheduler: {max_batch_size: 64}\n");
  ASSERT_TRUE(v06.ok()) << v06.error().message;
  EXPECT_EQ(v06->scheduler.max_batch_size, 64);        // the scenario's key wins
  EXPECT_EQ(v06->scheduler.max_batched_tokens, 4096);  // max(llama2-7b max_seq_len 4096, 2048)
  // SGLang 0.4: chunked prefill of 8192 tokens, 2048 on a GPU under 25 GB; TensorRT-LLM: 2048 sequences and
  // 8192 tokens with KV reserved for the whole request (orca).
  auto sg = parse("model: {name: llama2-7b}\nhardware: {gpu: h100-sxm5-80gb}\nengine: sglang\n");
  ASSERT_TRUE(sg.ok()) << sg.error().message;
  EXPECT_EQ(sg->scheduler.name, "sarathi");
  EXPECT_EQ(sg->scheduler.chunk_size, 8192);
  auto small = parse("model: {name: llama2-7b}\nhardware: {gpu: t4-16gb}\nengine: sglang\n");
  ASSERT_TRUE(small.ok()) << small.error().message;
  EXPECT_EQ(small->scheduler.chunk_size, 2048);
  auto trt = parse("model: {name: llama2-7b}\nhardware: {gpu: h100-sxm5-80gb}\nengine: trtllm\n");
  ASSERT_TRUE(trt.ok()) << trt.error().message;
  EXPECT_EQ(trt->scheduler.name, "orca");
  EXPECT_EQ(trt->scheduler.max_batch_size, 2048);
  EXPECT_EQ(trt->scheduler.max_batched_tokens, 8192);
  EXPECT_EQ(trt->scheduler.max_seq_len, 1);  // reserves max(1, prompt + output): the request's own length
  // attention_backend: a kernel family by name (overrides the engine's), the closest name on a typo.
  auto cudnn = parse("model: {name: llama2-7b}\nengine: vllm-0.6\nattention_backend: cudnn\n");
  ASSERT_TRUE(cudnn.ok()) << cudnn.error().message;
  EXPECT_EQ(cudnn->attention_backend, cost::AttentionBackend::kCudnn);
  EXPECT_FALSE(v06->attention_backend.has_value());  // the engine's family applies (serve/engine_profile.h)
  const std::string typo = ErrorOf("model: {name: llama2-7b}\nattention_backend: cudn\n");
  EXPECT_NE(typo.find(":2:"), std::string::npos) << typo;
  EXPECT_NE(typo.find("attention_backend"), std::string::npos) << typo;
  EXPECT_NE(typo.find("cudnn"), std::string::npos) << typo;
  auto bad = parse("model: {name: llama2-7b}\nengine: vllm-06\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("s.yaml:2:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("did you mean 'vllm-0.6'"), std::string::npos) << bad.error().message;
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

struct PrecisionPair {
  serve::ServeOptions variant;
  serve::ServeResult base, other;  // fp16, and with the variant's keys
};

// llama3-8b at 2 requests/s on `gpu` as the catalog gives it and with `keys` added to its model section, both
// simulated.
PrecisionPair SimulatePrecisions(const std::string& gpu, const std::string& keys) {
  const std::string rest = "}\nhardware: {gpu: " + gpu + "}\nworkload: {requests: 50, rate: 2}\n";
  auto fp16 = Parse("model: {name: llama3-8b" + rest);
  auto other = Parse("model: {name: llama3-8b, " + keys + rest);
  PrecisionPair p;
  EXPECT_TRUE(fp16.ok() && other.ok()) << (other.ok() ? "" : other.error().message);
  if (!fp16.ok() || !other.ok()) return p;
  p.variant = *other;
  auto a = serve::Simulate(*fp16, Cat(), nullptr);
  auto b = serve::Simulate(*other, Cat(), nullptr);
  EXPECT_TRUE(a.ok() && b.ok());
  if (a.ok() && b.ok()) {
    p.base = std::move(a).value();
    p.other = std::move(b).value();
  }
  return p;
}

// FP8 weights and KV cache (issue 37): half the bytes of each, FP8 GEMMs, a faster memory-bound decode on
// H100; refused at the key on a GPU without FP8 tensor cores.
TEST(ServeScenarioFp8, HalvesTheBytesAndSpeedsUpDecode) {
  const PrecisionPair p = SimulatePrecisions("h100-sxm5-80gb", "weight_dtype: fp8, kv_cache_dtype: fp8");
  EXPECT_EQ(p.variant.weight_dtype, hw::DType::kFp8);
  EXPECT_NEAR(p.other.memory.weights.ToBytes() / p.base.memory.weights.ToBytes(), 0.5, 1e-9);
  EXPECT_NEAR(p.other.memory.block_bytes / p.base.memory.block_bytes, 0.5, 1e-9);
  EXPECT_LT(p.other.metrics.tpot_s.mean, 0.8 * p.base.metrics.tpot_s.mean);
  const std::string e =
      ErrorOf("model: {name: llama2-7b, weight_dtype: fp8}\nhardware: {gpu: a100-sxm4-80gb}\n");
  EXPECT_NE(e.find("model.weight_dtype: fp8 needs FP8 tensor cores"), std::string::npos) << e;
  EXPECT_NE(ErrorOf("model: {name: llama2-7b, kv_cache_dtype: int3}\n").find("kv_cache_dtype"),
            std::string::npos);
}

// 4-bit weights (serve/weight_quant.h): 16-bit activations with the layers at 4.125 bits a weight, a faster
// memory-bound decode on an A100; refused at the key before Ampere, with sparse weights, and for the KV
// cache.
TEST(ServeScenarioInt4, ShrinksTheLayersAndSpeedsUpDecode) {
  const PrecisionPair p = SimulatePrecisions("a100-sxm4-80gb", "weight_dtype: int4");
  EXPECT_EQ(p.variant.weight_dtype, hw::DType::kFp16);
  EXPECT_EQ(p.variant.weight_quant, serve::WeightQuant::kInt4);
  const double ratio = p.other.memory.weights.ToBytes() / p.base.memory.weights.ToBytes();
  EXPECT_GT(ratio, 0.25);  // the layers at 0.516 / 2 of their bytes; the embeddings and LM head stay 16-bit
  EXPECT_LT(ratio, 0.40);
  EXPECT_DOUBLE_EQ(p.other.memory.block_bytes.ToBytes(), p.base.memory.block_bytes.ToBytes());
  EXPECT_LT(p.other.metrics.tpot_s.mean, 0.6 * p.base.metrics.tpot_s.mean);
  const std::string old_gpu =
      ErrorOf("model: {name: llama2-7b, weight_dtype: int4}\nhardware: {gpu: v100-sxm2-32gb}\n");
  EXPECT_NE(old_gpu.find("model.weight_dtype: int4 weights run on Marlin's kernels"), std::string::npos)
      << old_gpu;
  const std::string sparse = ErrorOf("model: {name: llama2-7b, weight_dtype: int4, weight_sparsity: 0.5}\n");
  EXPECT_NE(sparse.find("model.weight_dtype: fp8, int4 or int8 weights with weight_sparsity"),
            std::string::npos)
      << sparse;
  EXPECT_NE(ErrorOf("model: {name: llama2-7b, kv_cache_dtype: int4}\n").find("kv_cache_dtype"),
            std::string::npos);
}

// 8-bit weights (W8A16 on Marlin): the layers at 8.125 bits a weight, decode faster than fp16; the resolved
// scenario names them; refused before Ampere and for the KV cache.
TEST(ServeScenarioInt8, HalvesTheLayersAndNamesThemInTheResolvedScenario) {
  const PrecisionPair p = SimulatePrecisions("a100-sxm4-80gb", "weight_dtype: int8");
  EXPECT_EQ(p.variant.weight_quant, serve::WeightQuant::kInt8);
  const double ratio = p.other.memory.weights.ToBytes() / p.base.memory.weights.ToBytes();
  EXPECT_GT(ratio, 0.50);  // the layers at 1.016 / 2 of their bytes; the embeddings and LM head stay 16-bit
  EXPECT_LT(ratio, 0.60);
  EXPECT_LT(p.other.metrics.tpot_s.mean, 0.8 * p.base.metrics.tpot_s.mean);
  EXPECT_EQ(ResolvedServeScenario(p.variant)["model"]["weight_dtype"], "int8");
  const std::string old_gpu =
      ErrorOf("model: {name: llama2-7b, weight_dtype: int8}\nhardware: {gpu: t4-16gb}\n");
  EXPECT_NE(old_gpu.find("model.weight_dtype: int8 weights run on Marlin's kernels"), std::string::npos)
      << old_gpu;
  EXPECT_NE(ErrorOf("model: {name: llama2-7b, kv_cache_dtype: int8}\n").find("kv_cache_dtype"),
            std::string::npos);
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

// Issue 37: a head_dim other than hidden / heads (Mistral-Nemo 12B: hidden 5120, 32 heads of 128, 8 KV heads)
// serves, with the KV cache and the projections at its head width; MoE is still refused at `model`.
TEST(ServeScenarioHeadDim, ExplicitHeadDimServesAtItsWidth) {
  const std::string nemo =
      "model: {layers: 40, hidden: 5120, heads: 32, kv_heads: 8, head_dim: 128, ffn_hidden: 14336, vocab: "
      "131072, "
      "gated_mlp: true, norm: rmsnorm, position_embedding: rope}\nhardware: {gpu: h100-sxm5-80gb}\n"
      "workload: {requests: 20, rate: 2}\n";
  auto o = Parse(nemo);
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->model.head_dim(), 128);
  auto r = serve::Simulate(*o, Cat(), nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  // K and V of 40 layers x 8 heads x 128 x 2 bytes per token, 16 tokens per block.
  EXPECT_DOUBLE_EQ(r->memory.block_bytes.ToBytes(), 2.0 * 40 * 8 * 128 * 2 * 16);
  EXPECT_EQ(r->metrics.requests_completed, 20);
  const std::string e = ErrorOf("model: {name: deepseek-v3}\nhardware: {gpu: h200, tp: 8}\n");
  EXPECT_NE(e.find("multi-head latent attention (MLA)"), std::string::npos) << e;
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

// hardware.sm_clock_mhz (a clock locked with nvidia-smi -lgc), as training reads it: the GPU's arithmetic at
// the clock over the one its rates held at (hw/sm_clock.h), its HBM unchanged, so a compute-bound prefill
// slows by about the ratio and a memory-bound batch-1 decode hardly; the resolved scenario keeps the key;
// errors at the key.
TEST(ServeScenarioSmClock, LockedClockSlowsArithmeticNotMemory) {
  const std::string rest =
      "workload: {requests: 20, rate: 0.1, prompt_tokens: {distribution: fixed, value: 4096}, "
      "output_tokens: {distribution: fixed, value: 64}}\n";
  auto free = Parse("model: {name: llama3-8b}\nhardware: {gpu: h200}\n" + rest);
  auto locked = Parse("model: {name: llama3-8b}\nhardware: {gpu: h200, sm_clock_mhz: 915}\n" + rest);
  ASSERT_TRUE(free.ok() && locked.ok()) << (locked.ok() ? "" : locked.error().message);
  EXPECT_EQ(locked->hardware.sm_clock_mhz, 915.0);  // half the H200's sustained 1830 MHz
  EXPECT_NEAR(
      locked->gpu.SustainedPeak(hw::DType::kBf16).value() / free->gpu.SustainedPeak(hw::DType::kBf16).value(),
      0.5, 1e-9);
  EXPECT_DOUBLE_EQ(locked->gpu.hbm_bandwidth.value(), free->gpu.hbm_bandwidth.value());
  auto a = serve::Simulate(*free, Cat(), nullptr);
  auto b = serve::Simulate(*locked, Cat(), nullptr);
  ASSERT_TRUE(a.ok() && b.ok());
  const double ttft = b->metrics.ttft_s.mean / a->metrics.ttft_s.mean;
  const double tpot = b->metrics.tpot_s.mean / a->metrics.tpot_s.mean;
  EXPECT_GT(ttft, 1.6) << ttft;   // 4,096-token prefills: GEMM-bound
  EXPECT_LT(ttft, 2.1) << ttft;   // at most the clock ratio, plus the rare wait behind a slower prefill
  EXPECT_LT(tpot, 1.15) << tpot;  // batch-1 decode streams the weights
  EXPECT_GT(tpot, 1.0) << tpot;
  const auto resolved = ResolvedServeScenario(*locked);
  EXPECT_EQ(resolved["hardware"]["sm_clock_mhz"], 915.0);
  EXPECT_FALSE(ResolvedServeScenario(*free)["hardware"].contains("sm_clock_mhz"));
  const std::string above = ErrorOf("model: {name: llama3-8b}\nhardware: {gpu: h200, sm_clock_mhz: 2100}\n");
  EXPECT_NE(above.find("s.yaml:2:37: hardware.sm_clock_mhz: SM clock 2100 MHz is outside (0, 1980]"),
            std::string::npos)
      << above;
  const std::string unknown =
      ErrorOf("model: {name: llama3-8b}\nhardware: {gpu: h100-hbm2e-96gb, sm_clock_mhz: 1500}\n");
  EXPECT_NE(unknown.find("hardware.sm_clock_mhz:"), std::string::npos) << unknown;
  EXPECT_NE(
      ErrorOf("model: {name: llama3-8b}\nhardware: {gpu: h200, sm_clock_mhz: fast}\n").find("sm_clock_mhz"),
      std::string::npos);
}

}  // namespace
}  // namespace dlsim::io
