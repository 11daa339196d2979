// The validation sets added for issue 20. Most are held out: no training constant is fitted to them
// (validate::TrainingFitSets() does not list them) and their bound_pct is 0, so `dlsim validate` prints their
// MAPE with CI bound "-". Two are fit sets with bound kFitSetBoundPct: mlperf-v3.1-gpt3-h100 and
// nemo-long-context-cp-h100 (with NeMo 24.07 they are the H100 FP8 sets, so that each can be left out).
// Private to src/validate; docs/validation.md describes each.
#ifndef DLSIM_SRC_VALIDATE_HELD_OUT_SETS_H_
#define DLSIM_SRC_VALIDATE_HELD_OUT_SETS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/core/csv.h"
#include "dlsim/core/result.h"
#include "dlsim/validate/validation.h"
#include "set_scenarios.h"

namespace dlsim::validate::internal {

// The value a CSV cell names in an enum's name table (the embedded CSVs use only listed names; an unlisted
// one keeps `fallback`).
template <typename E, size_t N>
E NamedIn(const std::pair<std::string_view, E> (&names)[N], const std::string& text, E fallback) {
  for (const auto& [name, value] : names)
    if (name == text) return value;
  return fallback;
}

// The MAPE bound (%) of the fit sets added for issue 20: the cross-validated target.
inline constexpr double kFitSetBoundPct = 8.0;

// Each builds its set from the embedded CSV, or returns the CSV's or the catalog's error. An infeasible row
// is a row with feasible = false and the reason, not an error.
Result<ValidationSet> MegatronBridgeMoe(Runner& run);    // megatron-bridge-moe-b200
Result<ValidationSet> MegatronCoreMoeH100(Runner& run);  // megatron-core-moe-h100
Result<ValidationSet> MegatronBridgeDense(Runner& run);  // megatron-bridge-dense-b200
Result<ValidationSet> MlperfGpt3(Runner& run);           // mlperf-v3.1-gpt3-h100 (fit set)
Result<ValidationSet> NemoLongContextH100(Runner& run);  // nemo-long-context-cp-h100 (fit set)
Result<ValidationSet> NemoLongContextB200(Runner& run);  // nemo-long-context-cp-b200
Result<ValidationSet> TorchtitanFsdp(Runner& run);       // torchtitan-a100-fsdp
Result<ValidationSet> TorchtitanH100(Runner& run);       // torchtitan-h100-nd
Result<ValidationSet> TorchtitanH100405b(Runner& run);   // torchtitan-h100-405b-2d
Result<ValidationSet> BloomJeanZay(Runner& run);         // bloom-a100-jean-zay (held_out_bloom.cc)
// flash-attention-gpt3 (held_out_flash_attn.cc): GPT-3 style models on FlashAttention-2's training code.
Result<ValidationSet> FlashAttentionGpt3(Runner& run);
// megatron-moe-layer-h100 (held_out_moe_layer.cc): Megatron-LM's MoE-layer benchmark on eight H100s, the
// forward and backward of one MoE block (not a step: rows carry no scenario).
Result<ValidationSet> MegatronMoeLayerH100(Runner& run);
// Peak memory of real runs (memory_sets.cc): Megatron-LM's functional tests (CI bound 10%) and plain-PyTorch
// bf16 runs (torchtune, litgpt; held out, informational).
Result<ValidationSet> MegatronLmMemory(Runner& run);   // megatron-lm-memory
Result<ValidationSet> PytorchBf16Memory(Runner& run);  // pytorch-bf16-memory
// torchtitan-h100-nd-memory: torchtitan's logged peak reserved memory of the torchtitan-h100-nd rows.
Result<ValidationSet> TorchtitanH100Memory(Runner& run);
// The scenario of every row of torchtitan_h100_nd.csv (`t`, parsed), in row order, labelled by table,
// model, layout and schedule; both torchtitan H100 sets score these (held_out_sets.cc).
struct LabelledScenario {
  std::string label;
  train::TrainOptions options;
};
Result<std::vector<LabelledScenario>> TorchtitanH100Scenarios(const Runner& run, const CsvTable& t);
// serving-vllm-public (serving_sets.cc): published vLLM runs, TPOT (mean, or median where the run reported
// that), each a serve scenario of its engine; serving-vllm-public-ttft and -itl: the rows that published a
// TTFT or an ITL, against it; -throughput: request throughput; -latency: offline batches' duration
// (benchmark_latency).
Result<ValidationSet> ServingVllmPublic(Runner& run);
Result<ValidationSet> ServingVllmPublicTtft(Runner& run);
Result<ValidationSet> ServingVllmPublicItl(Runner& run);
Result<ValidationSet> ServingVllmPublicThroughput(Runner& run);
Result<ValidationSet> ServingVllmPublicLatency(Runner& run);
// serving-h200-steps (serving_steps.cc): the project's own H200 serving iterations of Llama 3.1 8B (decode
// steps as CUDA-graph replays, eager prefills), against the serving cost model's GPU time of each batch.
Result<ValidationSet> ServingH200Steps(Runner& run);

}  // namespace dlsim::validate::internal

#endif  // DLSIM_SRC_VALIDATE_HELD_OUT_SETS_H_
