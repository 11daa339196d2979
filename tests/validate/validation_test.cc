// The published-measurement bounds of issue 3, asserted in CI.
#include "dlsim/validate/validation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/validate/training_fit.h"

namespace dlsim::validate {
namespace {

class ValidationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto catalogs = io::LoadCatalogs({});
    ASSERT_TRUE(catalogs.ok()) << catalogs.error().message;
    auto sets = RunValidation(*catalogs);
    ASSERT_TRUE(sets.ok()) << sets.error().message;
    sets_ = new std::vector<ValidationSet>(std::move(sets).value());
  }
  static void TearDownTestSuite() { delete sets_; }
  static const ValidationSet& Set(const std::string& name) {
    for (const auto& s : *sets_)
      if (s.name == name) return s;
    ADD_FAILURE() << "no set " << name;
    static ValidationSet empty;
    return empty;
  }
  static void ExpectBound(const std::string& name, double bound) {
    const ValidationSet& s = Set(name);
    ASSERT_FALSE(s.rows.empty());
    std::string detail;
    for (const auto& r : s.rows) detail += "  " + r.label + ": " + std::to_string(r.ErrorPct()) + "%\n";
    EXPECT_LE(s.Mape(), bound) << name << " MAPE " << s.Mape() << "%\n" << detail;
  }
  static std::vector<ValidationSet>* sets_;
};
std::vector<ValidationSet>* ValidationTest::sets_ = nullptr;

// The three summary figures of a set, closed form: rows 10% too slow and 30% too fast give MAPE 20%, a signed
// mean of -10% (too fast on balance) and a largest error of 30%; an empty set gives zeros.
TEST(ValidationSetFigures, MapeSignedMeanAndMaxError) {
  ValidationSet s;
  EXPECT_EQ(s.SignedMeanErrorPct(), 0.0);
  s.rows.push_back({.label = "slow", .measured = 10.0, .predicted = 11.0});
  s.rows.push_back({.label = "fast", .measured = 10.0, .predicted = 7.0});
  EXPECT_NEAR(s.Mape(), 20.0, 1e-12);
  EXPECT_NEAR(s.SignedMeanErrorPct(), -10.0, 1e-12);
  EXPECT_NEAR(s.MaxAbsErrorPct(), 30.0, 1e-12);
}

TEST_F(ValidationTest, Megatron2021Table1StepTime) { ExpectBound("megatron-2021-table1", 5.0); }
TEST_F(ValidationTest, Korthikanti2022FullRecompute) { ExpectBound("korthikanti-2022-full", 5.0); }
TEST_F(ValidationTest, Korthikanti2022SeqSelective) { ExpectBound("korthikanti-2022-seq-sel", 5.0); }
TEST_F(ValidationTest, VtrainSingleNode) { ExpectBound("vtrain-single-node", 8.0); }
TEST_F(ValidationTest, Nemo2407H100Fp8) { ExpectBound("nemo-24.07-h100-fp8", 10.0); }
TEST_F(ValidationTest, MlperfGpt3H100) { ExpectBound("mlperf-v3.1-gpt3-h100", 8.0); }
TEST_F(ValidationTest, NemoLongContextH100) { ExpectBound("nemo-long-context-cp-h100", 8.0); }

// The sets added for issue 20 that the training constants are fitted on carry the 8% bound and are fit sets.
TEST_F(ValidationTest, LaterFitSetsAreFitted) {
  const auto& fit = TrainingFitSets();
  for (const char* name : {"mlperf-v3.1-gpt3-h100", "nemo-long-context-cp-h100"}) {
    EXPECT_EQ(Set(name).bound_pct, 8.0) << name;
    EXPECT_NE(std::find(fit.begin(), fit.end(), name), fit.end()) << name;
  }
  EXPECT_EQ(Set("mlperf-v3.1-gpt3-h100").rows.size(), 7u);
  EXPECT_EQ(Set("nemo-long-context-cp-h100").rows.size(), 9u);
}

// Memory components within 10% of Korthikanti et al. Figure 1, each row.
TEST_F(ValidationTest, Korthikanti2022MemoryComponents) {
  const ValidationSet& s = Set("korthikanti-2022-memory");
  ASSERT_EQ(s.rows.size(), 12u);
  for (const auto& r : s.rows) EXPECT_LE(std::fabs(r.ErrorPct()), 10.0) << r.label;
}

// Peak memory of Megatron-LM's functional tests (issue 32, memory fidelity): the last pipeline rank's
// simulated memory within 10% of the logged peak allocated bytes, each row, and every layout fits (they ran).
TEST_F(ValidationTest, MegatronLmMemoryWithinTenPercentPerRow) {
  const ValidationSet& s = Set("megatron-lm-memory");
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_EQ(s.bound_pct, 10.0);
  for (const auto& r : s.rows) {
    EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
    EXPECT_LE(std::fabs(r.ErrorPct()), 10.0) << r.label << " " << r.predicted << " vs " << r.measured;
  }
  ExpectBound("megatron-lm-memory", 10.0);
}

// Held-out sets (issue 20): they load with every published row, carry no CI bound, are not among the
// sets the training constants are fitted on, and each row is either simulated or infeasible with a reason.
TEST_F(ValidationTest, HeldOutSetsLoadAndAreNotFitted) {
  const std::pair<const char*, size_t> held_out[] = {{"megatron-bridge-moe-b200", 11},
                                                     {"megatron-bridge-dense-b200", 6},
                                                     {"nemo-long-context-cp-b200", 8},
                                                     {"torchtitan-a100-fsdp", 3},
                                                     {"torchtitan-h100-nd", 12},
                                                     {"bloom-a100-jean-zay", 18},
                                                     {"serving-vllm-public", 35},
                                                     {"serving-vllm-public-ttft", 18},
                                                     {"pytorch-bf16-memory", 4},
                                                     {"torchtitan-h100-nd-memory", 12},
                                                     {"torchtitan-h100-405b-2d", 3},
                                                     {"flash-attention-gpt3", 4},
                                                     {"serving-vllm-public-itl", 4},
                                                     {"serving-h200-steps", 15},
                                                     {"serving-vllm-public-throughput", 14},
                                                     {"serving-vllm-public-latency", 16},
                                                     {"megatron-moe-layer-h100", 16}};
  const auto& fit = TrainingFitSets();
  for (const auto& [name, rows] : held_out) {
    const ValidationSet& s = Set(name);
    EXPECT_EQ(s.rows.size(), rows) << name;
    EXPECT_EQ(s.bound_pct, 0.0) << name;
    EXPECT_FALSE(s.source.empty()) << name;
    EXPECT_EQ(std::find(fit.begin(), fit.end(), name), fit.end()) << name << " is a fit set";
    for (const auto& r : s.rows) {
      if (r.feasible)
        EXPECT_GT(r.predicted, 0) << name << " " << r.label;
      else
        EXPECT_FALSE(r.note.empty()) << name << " " << r.label << " is infeasible without a reason";
      EXPECT_GT(r.measured, 0) << name << " " << r.label;
    }
  }
}

// torchtitan's Grand Teton rows fit in memory as they did on the machines (issue 20: no production layout
// reported out of memory), long context with CP 8 at 256K tokens included.
TEST_F(ValidationTest, Nemo2407LayoutsAllFit) {
  // Nemotron-340B at TP 8 PP 8 VP 12 among them: the head held once on the last rank, in bf16 under FP8.
  for (const auto& r : Set("nemo-24.07-h100-fp8").rows) EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
}

// GPT-3 models on FlashAttention-2's training code (the paper's Table 1): every row fits as it ran (the 2.7B
// 8K row at micro-batch 2, the CSV's choice), and the A100 rows, where the kernels' rates are those of the
// fitted A100 profile, stay within 10%.
TEST_F(ValidationTest, FlashAttentionGpt3RowsFitAndA100IsClose) {
  int a100 = 0;
  for (const auto& r : Set("flash-attention-gpt3").rows) {
    EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
    ASSERT_NE(r.options, nullptr) << r.label;
    if (r.options->hardware.gpu != "a100-sxm4-80gb") continue;
    ++a100;
    EXPECT_LE(std::fabs(r.ErrorPct()), 10.0) << r.label << " " << r.predicted << " vs " << r.measured;
  }
  EXPECT_EQ(a100, 4);
}

// Megatron-Bridge's Qwen3-30B-A3B on 8 B200 across six containers: 25.09's token drop (capacity 1.0, padded)
// computes what dropless does under forced balance, so 25.09, 25.11 and 26.02 (same layout) get one
// prediction; the rows that amortise the dropless host synchronisation (26.02.01+: micro-batch 4, HybridEP)
// are within 30% and the one that avoids it (25.09: padded, whole-layer CUDA graphs) within 40%, while the
// 25.11 / 26.02 micro-batch-1 dropless rows, NVIDIA's acknowledged 2x regression (Megatron-Bridge issue
// #1998), stay more than 60% too fast: dlsim does not price a Megatron MoE layer's host time behind the
// dispatcher's device-to-host sync (docs/validation.md). (Within 25% / beyond -50% until 2026-12-07, when the
// token permutation's over-priced gather rate stopped hiding part of what is missing and HybridEP's rows lost
// their separate permutation.)
TEST_F(ValidationTest, MegatronBridgeQwenMoeRowsSplitByTheDroplessSync) {
  std::map<std::string, const ValidationRow*> qwen;
  for (const auto& r : Set("megatron-bridge-moe-b200").rows) {
    EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
    if (r.label.rfind("Qwen3", 0) == 0) qwen[r.label.substr(14, r.label.size() - 14 - 5)] = &r;
  }
  ASSERT_EQ(qwen.size(), 6u);
  EXPECT_NEAR(qwen.at("25.09")->predicted, qwen.at("25.11")->predicted, 1e-9);
  EXPECT_NEAR(qwen.at("25.11")->predicted, qwen.at("26.02")->predicted, 1e-9);
  for (const char* c : {"26.02.01", "26.04", "26.04.01"})
    EXPECT_LE(std::fabs(qwen.at(c)->ErrorPct()), 30.0) << c;
  EXPECT_LE(std::fabs(qwen.at("25.09")->ErrorPct()), 40.0);
  for (const char* c : {"25.11", "26.02"}) EXPECT_LT(qwen.at(c)->ErrorPct(), -60.0) << c;
}

TEST_F(ValidationTest, TorchtitanH100LayoutsAllFit) {
  for (const auto& r : Set("torchtitan-h100-nd").rows) EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
}

// Megatron-Core's MoE README: Mixtral 8x7B at 438 TFLOPS on 64 H100 with its reference mapping fits, and the
// step derived from Megatron-LM's FLOP count (3.102 s) is predicted within 25% (observed -17.9%, too fast).
TEST_F(ValidationTest, MegatronCoreMixtralReferenceMappingFitsAndIsNear) {
  const ValidationSet& s = Set("megatron-core-moe-h100");
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_TRUE(s.rows[0].feasible) << s.rows[0].note;
  EXPECT_NEAR(s.rows[0].measured, 3.1021, 1e-9);
  EXPECT_NEAR(s.rows[0].predicted, 3.1021, 0.25 * 3.1021);
}

// Megatron-LM's MoE-layer benchmark on eight H100s (the all-to-all and HybridEP dispatchers' eight cases,
// forward and backward): every row is priced, each names its parts, and the DeepSeek-style block (32 experts,
// top-8, hidden 7,168), whose permute and unpermute move 940 MB each per pass, lands within 15% in bf16 with
// the permute at FBGEMM's measured MoE gather rate (+25% / +41% when it was priced at the embedding lookup's
// 0.19 of HBM), and within 10% under HybridEP, which permutes inside its communication kernels.
TEST_F(ValidationTest, MegatronMoeLayerBlocksArePricedFromTheirParts) {
  const ValidationSet& s = Set("megatron-moe-layer-h100");
  EXPECT_EQ(s.metric, "MoE layer time (ms)");
  for (const auto& r : s.rows) {
    EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
    EXPECT_NE(r.note.find("all-to-all"), std::string::npos) << r.label;
  }
  const std::pair<const char*, double> bounds[] = {{"deepseek-proxy alltoall bf16 forward", 15.0},
                                                   {"deepseek-proxy alltoall bf16 backward", 15.0},
                                                   {"deepseek-proxy hybridep bf16 forward", 10.0},
                                                   {"deepseek-proxy hybridep bf16 backward", 10.0}};
  for (const auto& [name, bound] : bounds) {
    const std::string label = name;  // a structured binding cannot be captured before C++20's clang 16
    const auto it =
        std::find_if(s.rows.begin(), s.rows.end(), [&](const auto& r) { return r.label == label; });
    ASSERT_NE(it, s.rows.end()) << label;
    EXPECT_LE(std::fabs(it->ErrorPct()), bound) << label << " " << it->predicted << " vs " << it->measured;
  }
}

// BLOOM's layouts ran on 80 GB A100s (the sweep's two OOM layouts are not in the file): every row fits.
// The production run, BLOOM-176B at TP 4 x PP 12 x DP 8 on 384 GPUs, is within 25% of its 105.22 s.
TEST_F(ValidationTest, BloomLayoutsAllFit) {
  const ValidationSet& s = Set("bloom-a100-jean-zay");
  for (const auto& r : s.rows) EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
  ASSERT_FALSE(s.rows.empty());
  EXPECT_EQ(s.rows.front().measured, 105.22);
  EXPECT_NEAR(s.rows.front().predicted, 105.22, 0.25 * 105.22);
}

// The published vLLM runs (issue 37): every row serves (Mixtral's MoE rows included), and where the engine's
// CPU time is the larger part of a batch-1 step (vLLM 0.5.3, 70B FP8 on four H100s) the profile prices it
// within 10% of the measured 19 ms, where the GPU alone gives 11 ms.
TEST_F(ValidationTest, ServingRunsOfPublishedVllmReleases) {
  const ValidationSet& s = Set("serving-vllm-public");
  EXPECT_EQ(s.metric, "TPOT (ms, mean or median)");
  for (const auto& r : s.rows) EXPECT_TRUE(r.feasible) << r.label << ": " << r.note;
  ASSERT_FALSE(s.rows.empty());
  EXPECT_EQ(s.rows.front().measured, 19);
  EXPECT_NEAR(s.rows.front().predicted, 19, 0.10 * 19);
}

// Mean TTFT where a run published one (the CSV's `ttft_ms`): PR #6883's run before 0.6 (600 requests at 10 a
// second, chunked prefill) and PR #7921's synchronous multi-step run (200 requests of 955 tokens, as its
// output reports), where dlsim's first tokens come too early (docs/validation.md: 116 ms against 688 ms and
// 145 ms), a finding this pins until the engine's CPU time at that load is priced.
TEST_F(ValidationTest, ServingTtftRowsAreTheRunsThatPublishedOne) {
  const ValidationSet& s = Set("serving-vllm-public-ttft");
  EXPECT_EQ(s.metric, "TTFT (ms, mean or median)");
  ASSERT_EQ(s.rows.size(), 18u);
  EXPECT_EQ(s.rows[0].label, "8B chunked 10 req/s");
  EXPECT_EQ(s.rows[0].measured, 687.69);
  EXPECT_EQ(s.rows[1].label, "8B multi-step 8 10 req/s");
  EXPECT_EQ(s.rows[1].measured, 145.21);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_GT(s.rows[i].predicted, 20.0) << s.rows[i].label;
    EXPECT_LT(s.rows[i].predicted, s.rows[i].measured) << s.rows[i].label;
  }
}

// vLLM v0.6.0 with multi-step 10 under ShareGPT load (SGLang's benchmark_vllm_060: medians over 1,200 and
// 2,400 requests at 4 and 8 a second; Llama 3.1 8B on an A100, 70B on four H100s), replayed with the first
// requests of vLLM's ShareGPT sampling order (data/lengths/sharegpt_v3_llama3.csv). Mechanism: a run streams
// its ten tokens as one chunk, so the median ITL is several TPOTs, and a new request waits for the run in
// flight, so TTFT is a good part of a run; vLLM 0.6 streams every token one step late (async output
// processing), the first included. Verdict: TPOT within 6% and ITL within 8% on all four; TTFT within 6% on
// four H100s and 5-25% late on one A100 (docs/validation.md: the first-token path, derived from V1, or A100
// prefill is not settled), a finding this pins.
TEST_F(ValidationTest, ServingShareGptRowsOfVllm060UnderLoad) {
  const auto rows = [&](const char* set) {
    std::vector<ValidationRow> out;
    for (const auto& r : Set(set).rows)
      if (r.label.find("multi-step 10") != std::string::npos) out.push_back(r);
    return out;
  };
  const auto tpot = rows("serving-vllm-public"), ttft = rows("serving-vllm-public-ttft"),
             itl = rows("serving-vllm-public-itl");
  ASSERT_EQ(tpot.size(), 4u);
  ASSERT_EQ(ttft.size(), 4u);
  ASSERT_EQ(itl.size(), 4u);
  EXPECT_EQ(Set("serving-vllm-public-itl").metric, "ITL (ms, mean or median)");
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_NEAR(tpot[i].predicted, tpot[i].measured, 0.06 * tpot[i].measured) << tpot[i].label;
    EXPECT_NEAR(itl[i].predicted, itl[i].measured, 0.08 * itl[i].measured) << itl[i].label;
    EXPECT_GT(itl[i].predicted, 7 * tpot[i].predicted) << itl[i].label;
    EXPECT_GT(ttft[i].predicted, 0.5 * 10 * tpot[i].predicted) << ttft[i].label;
    const bool one_gpu = ttft[i].label.rfind("8B", 0) == 0;
    if (one_gpu) {
      EXPECT_GT(ttft[i].predicted, 1.05 * ttft[i].measured) << ttft[i].label;
      EXPECT_LT(ttft[i].predicted, 1.25 * ttft[i].measured) << ttft[i].label;
    } else {
      EXPECT_NEAR(ttft[i].predicted, ttft[i].measured, 0.06 * ttft[i].measured) << ttft[i].label;
    }
  }
}

// vLLM's v0.6.0 blog figures (docs/validation.md, "serving-vllm-public": 500 requests, v0.6.0 with
// multi-step 10 on one or four A100 / H100, and v0.5.3 beside it on H100). Mechanism: with every request sent
// at once the run's length is the work of the whole batch, so request throughput (the run's duration) is
// priced within 12% on the decode-heavy prompts and 27% on ShareGPT (whose generated lengths are known only
// as a mean) on all four setups, with the benchmark's own --max-num-seqs 512. Findings this pins: (1) the
// H100 prefill-heavy runs (462 prompt, 16 output tokens) finish 1.2-1.5x sooner in dlsim than measured, the
// A100 ones within 5% (H100 prefill priced too fast, as serving-h200-steps also finds); (2) with every
// request admitted at once the decode-heavy TPOTs are within 12%, while on ShareGPT dlsim's mean TPOT is over
// 10% slow and on one H100 its mean TTFT under 65% of the measured: dlsim's early short-output requests wait
// through every other prefill; a serial API-server intake alone does not explain it (docs/validation.md); (3)
// vLLM 0.5.3's CPU time at 32 requests a second is over-priced (TPOT +15..30% on 8B).
TEST_F(ValidationTest, ServingVllmBlogFiguresDurationsAndOverload) {
  auto blog = [&](const char* set) {
    std::map<std::string, ValidationRow> out;
    for (const auto& r : Set(set).rows)
      if (r.label.rfind("blog ", 0) == 0) out[r.label.substr(5)] = r;
    return out;
  };
  const auto throughput = blog("serving-vllm-public-throughput"), tpot = blog("serving-vllm-public");
  const auto ttft = blog("serving-vllm-public-ttft");
  ASSERT_EQ(throughput.size(), 14u);
  EXPECT_EQ(Set("serving-vllm-public-throughput").metric, "requests/s (run duration)");
  for (const char* setup : {"8B H100", "70B 4xH100", "8B A100", "70B 4xA100"}) {
    for (const auto& [workload, tolerance] :
         {std::pair{" ShareGPT all at once", 0.27}, std::pair{" decode-heavy all at once", 0.12}}) {
      const ValidationRow& r = throughput.at(std::string(setup) + workload);
      EXPECT_NEAR(r.predicted, r.measured, tolerance * r.measured) << r.label;
    }
    const ValidationRow& decode = tpot.at(std::string(setup) + " decode-heavy all at once");
    EXPECT_NEAR(decode.predicted, decode.measured, 0.12 * decode.measured) << decode.label;
    const ValidationRow& sharegpt = tpot.at(std::string(setup) + " ShareGPT all at once");
    EXPECT_GT(sharegpt.predicted, 1.10 * sharegpt.measured) << sharegpt.label;
  }
  for (const char* workload : {"ShareGPT", "decode-heavy", "prefill-heavy"}) {
    const ValidationRow& t = ttft.at(std::string("8B H100 ") + workload + " all at once");
    EXPECT_LT(t.predicted, 0.65 * t.measured) << t.label;
  }
  EXPECT_GT(throughput.at("8B H100 prefill-heavy all at once").predicted,
            1.3 * throughput.at("8B H100 prefill-heavy all at once").measured);
  EXPECT_NEAR(throughput.at("8B A100 prefill-heavy all at once").predicted,
              throughput.at("8B A100 prefill-heavy all at once").measured,
              0.05 * throughput.at("8B A100 prefill-heavy all at once").measured);
  const ValidationRow& old_tpot = tpot.at("8B H100 v0.5.3 ShareGPT 32 req/s");
  EXPECT_GT(old_tpot.predicted, 1.15 * old_tpot.measured);
  EXPECT_LT(old_tpot.predicted, 1.30 * old_tpot.measured);
  const ValidationRow& new_tpot = tpot.at("8B H100 v0.6.0 ShareGPT 32 req/s");
  EXPECT_NEAR(new_tpot.predicted, new_tpot.measured, 0.10 * new_tpot.measured);
}

// The project's own H200 serving iterations of Llama 3.1 8B (issue 37; docs/validation.md,
// "serving-h200-steps"), priced as the plain decoder runs (eager memory-bound kernels, SDPA's choice).
// Decode steps replayed as CUDA graphs (the GPU floor) are within 12% up to 64K KV tokens per step; at 32 x
// 8K (256K tokens, 32 GiB of KV) the paged-attention GEMV is priced 10-25% slower than the measured SDPA
// decode over a contiguous cache. The eager prefills the GPU bounds are 5-20% too fast (the eager kernels'
// bytes are priced at the full HBM rate, the trace moved them at 0.38 of it; GEMMs ~4% slower than priced), a
// finding this pins; the 128-token prompt the host bounds is priced at the eager decode steps' median issue
// time.
TEST_F(ValidationTest, ServingH200StepsDecodeFloorAndEagerPrefill) {
  const ValidationSet& s = Set("serving-h200-steps");
  ASSERT_EQ(s.rows.size(), 15u);
  int host_bound = 0;
  for (const auto& r : s.rows) {
    ASSERT_TRUE(r.feasible) << r.label;
    const bool decode = r.label.rfind("decode", 0) == 0;
    if (decode && r.label.find("b32 ctx8192") != std::string::npos) {
      EXPECT_GT(r.ErrorPct(), 10.0) << r.label;
      EXPECT_LT(r.ErrorPct(), 25.0) << r.label;
    } else if (decode) {
      EXPECT_LT(std::fabs(r.ErrorPct()), 12.0) << r.label;
    } else if (!r.note.empty()) {
      ++host_bound;
      EXPECT_NEAR(r.predicted, 13.09, 0.01) << r.label;  // the median eager decode step
    } else {
      EXPECT_LT(r.ErrorPct(), -5.0) << r.label;
      EXPECT_GT(r.ErrorPct(), -20.0) << r.label;
    }
  }
  EXPECT_EQ(host_bound, 1);  // the 128-token prompt
}

// Offline batch latency as vLLM's benchmark_latency measures it (vLLM PR #23197, V1 engine on H100s: 256
// prompt and 32 output tokens for each of 1-16 requests sent at once; Llama 3.1 8B on one GPU in BF16 and in
// Marlin-run int4 and int8, Llama 3.3 70B on four in BF16). Mechanism: the batch's duration is one prefill of
// every prompt plus 31 decode steps, so it grows with the batch, and quantized weights shorten every
// memory-bound decode step, 4-bit more than 8-bit. Verdict: the BF16 rows within 8% on both setups, each a
// little slow (the decode step); int4 within 3% and int8 within 6% at batch 1. A finding this pins: the
// quantized rows at batch 4-16 are 5-17% fast (measured, int4 and int8 gain 40-45 ms from batch 1 to 4 where
// BF16 gains 24; dlsim's increments match BF16's; docs/validation.md).
TEST_F(ValidationTest, ServingOfflineBatchLatencyOfVllmV1) {
  const ValidationSet& s = Set("serving-vllm-public-latency");
  EXPECT_EQ(s.metric, "batch latency (ms, offline)");
  std::map<std::string, ValidationRow> rows;
  for (const auto& r : s.rows) rows[r.label] = r;
  ASSERT_EQ(rows.size(), 16u);
  double previous = 0;
  for (const std::string batch : {"1", "4", "8", "16"}) {
    const ValidationRow& bf16 = rows.at("8B bf16 batch " + batch + " latency");
    const ValidationRow& int4 = rows.at("8B int4 batch " + batch + " latency");
    const ValidationRow& int8 = rows.at("8B int8 batch " + batch + " latency");
    const ValidationRow& tp4 = rows.at("70B bf16 tp4 batch " + batch + " latency");
    for (const ValidationRow* r : {&bf16, &int4, &int8, &tp4})
      ASSERT_TRUE(r->feasible) << r->label << ": " << r->note;
    for (const ValidationRow* r : {&bf16, &tp4}) {
      EXPECT_GT(r->predicted, r->measured) << r->label;
      EXPECT_LT(r->predicted, 1.08 * r->measured) << r->label;
    }
    EXPECT_LT(int4.predicted, 0.8 * bf16.predicted) << batch;
    EXPECT_LT(int4.predicted, int8.predicted) << batch;
    EXPECT_LT(int8.predicted, bf16.predicted) << batch;
    EXPECT_GT(bf16.predicted, previous) << batch;
    previous = bf16.predicted;
    if (batch == "1") {
      EXPECT_NEAR(int4.predicted, int4.measured, 0.03 * int4.measured);
      EXPECT_NEAR(int8.predicted, int8.measured, 0.06 * int8.measured);
      continue;
    }
    for (const ValidationRow* r : {&int4, &int8}) {
      EXPECT_LT(r->predicted, 0.95 * r->measured) << r->label;
      EXPECT_GT(r->predicted, 0.83 * r->measured) << r->label;
    }
  }
}

// The shipped serving intervals (data/calibration/intervals.yaml) are those of today's predictions: each
// regime's bounds are quantiles of measured / predicted over its set's rows no constant was fitted on
// (#6913's two TPOT rows set vllm-0.5's per-request cost), so each is one of those rows' ratios. A change
// that moves the serving predictions fails here until scripts/fit-intervals.py is run again.
TEST_F(ValidationTest, ShippedServingIntervalIsTheOutOfFitRowsSpread) {
  auto catalogs = io::LoadCatalogs({});
  ASSERT_TRUE(catalogs.ok());
  for (const auto& [regime, set] :
       {std::pair{"serving", "serving-vllm-public"}, std::pair{"serving-ttft", "serving-vllm-public-ttft"},
        std::pair{"serving-throughput", "serving-vllm-public-throughput"}}) {
    const cost::IntervalRegime* g = catalogs->intervals.Find(regime);
    ASSERT_NE(g, nullptr) << regime;
    std::vector<double> ratios;
    for (const auto& r : Set(set).rows)
      if (r.label.rfind("70B-fp8 tp4", 0) != 0) ratios.push_back(r.measured / r.predicted);
    EXPECT_EQ(static_cast<int>(ratios.size()), g->rows) << regime;
    auto is_a_ratio = [&](double bound) {
      return std::any_of(ratios.begin(), ratios.end(),
                         [&](double x) { return std::abs(x - bound) < 1e-4 * x; });
    };
    // An interval contains its prediction: a quantile beyond 1 is clamped to 1 (scripts/fit-intervals.py; the
    // TTFT's lower end since the v0.6.0 blog's runs admit every request at once, dlsim's TTFTs nearly all
    // low).
    EXPECT_TRUE(is_a_ratio(g->low) || g->low == 1.0)
        << regime << " low " << g->low << ": run scripts/fit-intervals.py";
    EXPECT_TRUE(is_a_ratio(g->high)) << regime << " high " << g->high << ": run scripts/fit-intervals.py";
    EXPECT_LE(g->low, 1.0) << regime;
    EXPECT_GT(g->high, 1.0) << regime;
  }
}

// The shipped `memory` interval is the 10th-90th percentile of measured / predicted peak memory over the
// three real-run memory sets (nothing fitted to them), so each bound is one of their rows' ratios; a change
// that moves a memory prediction fails here until scripts/fit-intervals.py is run again.
TEST_F(ValidationTest, ShippedMemoryIntervalIsTheRealRunsSpread) {
  auto catalogs = io::LoadCatalogs({});
  ASSERT_TRUE(catalogs.ok());
  const cost::IntervalRegime* memory = catalogs->intervals.Find("memory");
  ASSERT_NE(memory, nullptr);
  std::vector<double> ratios;
  for (const char* set : {"megatron-lm-memory", "pytorch-bf16-memory", "torchtitan-h100-nd-memory"})
    for (const auto& r : Set(set).rows) ratios.push_back(r.measured / r.predicted);
  EXPECT_EQ(static_cast<int>(ratios.size()), memory->rows);
  EXPECT_EQ(memory->sets, 3);
  for (double bound : {memory->low, memory->high})
    EXPECT_TRUE(
        std::any_of(ratios.begin(), ratios.end(), [&](double x) { return std::abs(x - bound) < 1e-4 * x; }))
        << bound << ": run scripts/fit-intervals.py";
  EXPECT_LT(memory->low, 1.0);
  EXPECT_GT(memory->high, 1.0);
}

TEST_F(ValidationTest, EveryRowHasAPrediction) {
  for (const auto& s : *sets_)
    for (const auto& r : s.rows) EXPECT_GT(r.predicted, 0) << s.name << " " << r.label << " " << r.note;
}

}  // namespace
}  // namespace dlsim::validate
