// Serving-engine profiles (`engine:` in a serve scenario; docs/serving.md, "Engines"): what an engine
// release does that changes its speed — how it all-reduces tensor-parallel activations and its
// scheduler defaults — each value read from the engine's code at the release (sources in
// engine_profile.cc and the docs).
//
//   const EngineProfile* e = *FindEngine("vllm-0.6");
//   e->UsesCustomAllReduce(tp, bytes, nvlink)   // vLLM's custom all-reduce, else NCCL
#ifndef DLSIM_SERVE_ENGINE_PROFILE_H_
#define DLSIM_SERVE_ENGINE_PROFILE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/serve/engine_host.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/request.h"

namespace dlsim::serve {

enum class TpAllReduce {
  kCustom,      // one-shot / two-shot custom all-reduce for small messages (tp_allreduce.h), NCCL above
  kNcclFitted,  // NCCL for every message plus the per-collective host overhead fitted on SplitwiseSim
};

// How an engine runs a sliding-window model (model::ModelSpec::sliding_window) as one averaged layer: the
// window its windowed layers compute through (0: none), the share of layers computed through it, and the
// share of layers whose KV outside the window is freed.
struct WindowedAttention {
  int64_t window = 0;
  double compute_share = 0;
  double kv_share = 0;
};

struct EngineProfile {
  std::string name;
  std::string description;
  TpAllReduce allreduce = TpAllReduce::kCustom;
  // kCustom: the largest message (bytes, exclusive) the custom kernel takes for a world of <= 4 and of more
  // GPUs, and the world sizes it supports (others, and GPUs without NVLink beyond 2, go to NCCL).
  double custom_max_bytes_small_world = 8.0 * 1024 * 1024;
  double custom_max_bytes_large_world = 8.0 * 1024 * 1024;
  std::vector<int> custom_worlds = {2, 4, 6, 8};
  // Scheduler defaults the engine release ships (unset: dlsim's, docs/serving.md).
  std::optional<std::string> scheduler;        // "vllm" (prefill-first) or "sarathi" (chunked prefill)
  std::optional<int> max_num_seqs;             // scheduler.max_batch_size
  std::optional<int64_t> max_batched_tokens;   // per iteration (also sarathi's chunk_size)
  bool max_batched_tokens_from_model = false;  // max(model max_seq_len, 2048), vLLM 0.5/0.6's rule
  // Tokens per step on a GPU of less memory than `small_gpu_gib` (SGLang's chunked_prefill_size rule); 0:
  // none.
  int64_t small_gpu_batched_tokens = 0;
  double small_gpu_gib = 0;
  // orca only: KV reserved per request; 1 = the request's own prompt + output (TensorRT-LLM's
  // GUARANTEED_NO_EVICT reserves what each request may reach), unset: dlsim's max_seq_len.
  std::optional<int64_t> reserve_tokens;
  // Automatic prefix caching on by default (vLLM V1, SGLang's radix cache); unset: off.
  std::optional<bool> prefix_caching;
  // The attention kernel family its prefills run (a source in engine_profile.cc); unset: not measured,
  // `model`.
  std::optional<cost::AttentionBackend> attention_backend;
  // An interleaved sliding-window model (some layers global, Gemma 2/3): whether its windowed layers are
  // computed through the window (false: the engine disables the window, every layer global) and whether their
  // KV outside it is freed (a hybrid KV cache manager; false: every layer keeps every token). A model
  // windowed in every layer (Mistral 7B v0.1) is windowed in both in every profile.
  bool interleaved_window = true;
  bool interleaved_window_kv = true;
  // The engine's CPU time per step and first-token path (engine_host.h), measured where a source exists
  // (data/serving/engine_host.csv); zero where none does (`default`, `sglang`, `trtllm`, and
  // `splitwise-2023`, whose fitted all-reduce overhead already holds its host time).
  EngineHost host;

  // How this engine runs `model`'s sliding window (all zero without one).
  WindowedAttention WindowOf(const model::ModelSpec& model) const;
  // The longest request (prompt + output tokens) the engine serves `model` with when that is less than the
  // model's context: an engine that disables an interleaved model's window caps its context to the window
  // (vLLM 0.5/0.6, PR #5908); 0: no such cap.
  int64_t ContextCapOf(const model::ModelSpec& model) const;
  // Whether an all-reduce of `bytes` over `tp` GPUs runs the custom kernel (kCustom only).
  bool UsesCustomAllReduce(int tp, double bytes, bool nvlink) const;
  // dlsim's scheduler defaults (SchedulerOptions{}) with this engine's laid over them, for `model` on a GPU
  // of `gpu_gib` GiB of memory.
  SchedulerOptions SchedulerDefaults(const model::ModelSpec& model, double gpu_gib = 80) const;
};

// The engine CPU time a run of `o` prices: `o.engine_host` when set; else the profile's (an unknown engine:
// none), with o.engine_calibrations' entry for the engine and then the scenario's keys laid over it.
EngineHost HostOf(const ServeOptions& o);

// How the engine of `o` runs its model's sliding window (an unknown engine: the default profile's way).
WindowedAttention WindowOf(const ServeOptions& o);

// The prefill attention family `o` is priced with: the scenario's, else its engine's, else `model`.
cost::AttentionBackend AttentionBackendOf(const ServeOptions& o);

// Ok, or kInfeasible when the engine of `o` caps its model's context (EngineProfile::ContextCapOf) below a
// request's prompt + output: the reason names the engine, the cap, how many requests and the longest.
Status CheckContextCap(const ServeOptions& o, const std::vector<Request>& requests);

// Every profile, the default ("default": vLLM's all-reduce rule, dlsim's scheduler defaults) first.
const std::vector<EngineProfile>& EngineProfiles();
// The profile named `name`; an error lists the names (with the closest).
Result<const EngineProfile*> FindEngine(std::string_view name);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_ENGINE_PROFILE_H_
