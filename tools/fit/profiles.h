// Measured operator profiles turned into samples for fitting and checking the compute model.
//
// Readers for the CSV formats in ../shared/data/profiles (copies of rows live in
// tests/data/profiles/ for tests):
//  - vidur  {a100,h100}/<model>.mlp.csv: per-operator latencies (ms) of projection GEMMs, MLP,
//    norms, rotary, residual add and embedding, by num_tokens and tensor-parallel degree;
//    fp16/bf16 inference kernels (vLLM-style), microsoft/vidur @ 7d47513, data/profiling/compute.
//  - distca compute-attn-H100.csv: FlashAttention-2 varlen forward (bf16, causal) per document,
//    by document length L, TP and CP; 64 query heads, 4 KV heads, head_dim 128 (Qwen3-235B).
//    hao-ai-lab/DistCA @ 2afd219, distca/profiling/data (profiler: modal-scripts/attn-prof.py).
//
//   auto s = dlsim::fit::ReadVidurCsv(path, "ampere");  // Result<std::vector<Sample>>
//
// Lines starting with '#' are comments (source lines of the test copies).
#ifndef DLSIM_TOOLS_FIT_PROFILES_H_
#define DLSIM_TOOLS_FIT_PROFILES_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/hw/gpu.h"

namespace dlsim::fit {

enum class SampleKind { kGemm, kAttention, kMemory };

struct Sample {
  SampleKind kind = SampleKind::kGemm;
  std::string op;            // "attn_pre_proj", "mlp_act", "attn_fwd", ...
  std::string architecture;  // "ampere", "hopper"
  std::string source;        // "file:line"
  int64_t num_tokens = 0;    // the held-out split key (document length for attention)
  bool held_out = false;
  cost::GemmShape gemm;
  cost::AttentionShape attention;
  double bytes = 0;  // memory-bound kernels
  double flops = 0;
  double measured_s = 0;  // median latency
};

inline constexpr const char* kGemmOps[] = {"attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj"};
inline constexpr const char* kMemoryOps[] = {
    "input_layernorm", "post_attention_layernorm", "attn_rope", "mlp_act", "add", "emb"};

// Reads one vidur *.mlp.csv; one sample per operator and row. An optional leading "gpu" column
// (a100 | h100, in the test copies) overrides `architecture` per row. Error on a missing column or a
// malformed number (message names file and line).
Result<std::vector<Sample>> ReadVidurCsv(const std::string& path, const std::string& architecture);
// Reads DistCA's compute-attn-H100.csv (columns L, cp, tp, duration_per_doc in ms).
Result<std::vector<Sample>> ReadDistcaAttentionCsv(const std::string& path);

// Marks every 4th distinct num_tokens value (per architecture and op, in sorted order, starting
// with the 4th) as held out from fitting.
void MarkHeldOut(std::vector<Sample>& samples);

// Reference specs of the profiled GPUs (A100-SXM4-80GB for "ampere", H100-SXM5-80GB for
// "hopper"; NVIDIA datasheets): dense peaks, HBM bandwidth, SM count.
hw::GpuSpec ProfiledGpu(const std::string& architecture);

}  // namespace dlsim::fit

#endif  // DLSIM_TOOLS_FIT_PROFILES_H_
