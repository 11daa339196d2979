// Serving-engine profiles (engine_profile.h). Every value was read from the engine's source at the release
// (vllm-project/vllm: v0.5.4 = 4db5176d, v0.6.0 = 32e7db25, V1 at the v0.8.0 release date = 228b768d;
// TensorRT-LLM allreducePlugin.cpp @005b299b; SGLang custom_all_reduce.py @004e6561):
//   custom all-reduce: vllm/distributed/device_communicators/custom_all_reduce.py (_SUPPORTED_WORLD_SIZES
//     [2, 4, 6, 8], max_size 8 MiB, only with 2 GPUs or full NVLink);
//   TensorRT-LLM AUTO: one-shot below 1,000,000 B (<= 4 GPUs) or 500,000 B (more), NCCL above;
//   max_num_seqs 256 (engine/arg_utils.py, 0.5.4 L63, 0.6.0 L90) and 1024 under V1 (0.8.0);
//   max_num_batched_tokens max(max_model_len, 2048) without chunked prefill (config.py, 0.5.4 L804-818) and
//   8192 for the OpenAI server on H100/H200 under V1, where chunked prefill is always on.
// The engine CPU times (EngineProfile::host) are measurements, each with its source and derivation in
// data/serving/engine_host.csv (a test holds these values to that file).
#include "dlsim/serve/engine_profile.h"

#include <fmt/format.h>

#include <algorithm>

#include "dlsim/core/strings.h"

namespace dlsim::serve {

bool EngineProfile::UsesCustomAllReduce(int tp, double bytes, bool nvlink) const {
  if (allreduce != TpAllReduce::kCustom) return false;
  if (std::find(custom_worlds.begin(), custom_worlds.end(), tp) == custom_worlds.end()) return false;
  if (tp > 2 && !nvlink) return false;
  return bytes < (tp <= 4 ? custom_max_bytes_small_world : custom_max_bytes_large_world);
}

SchedulerOptions EngineProfile::SchedulerDefaults(const model::ModelSpec& model, double gpu_gib) const {
  SchedulerOptions o;
  if (scheduler) o.name = *scheduler;
  if (max_num_seqs) o.max_batch_size = *max_num_seqs;
  if (max_batched_tokens) o.max_batched_tokens = o.chunk_size = *max_batched_tokens;
  if (reserve_tokens) o.max_seq_len = *reserve_tokens;
  if (prefix_caching) o.prefix_caching = *prefix_caching;
  if (small_gpu_batched_tokens > 0 && gpu_gib < small_gpu_gib)
    o.max_batched_tokens = o.chunk_size = small_gpu_batched_tokens;
  if (max_batched_tokens_from_model) o.max_batched_tokens = std::max<int64_t>(model.max_seq_len, 2048);
  return o;
}

namespace {

// A calibration file's engine fields as the same overlay a scenario's `engine_host:` keys are (unset: kept).
EngineHostKeys KeysOf(const cost::EngineHostCalibration& c) {
  auto us = [](const std::optional<double>& v) { return v ? std::optional(Micros(*v)) : std::nullopt; };
  return {.step = us(c.step_us),
          .per_request = us(c.per_request_us),
          .stream = us(c.stream_us),
          .first_token = us(c.first_token_us)};
}

}  // namespace

EngineHost HostOf(const ServeOptions& o) {
  if (o.engine_host) return *o.engine_host;
  auto e = FindEngine(o.engine);
  EngineHost h = e.ok() ? (*e)->host : EngineHost{};
  for (const cost::EngineHostCalibration& c : o.engine_calibrations)
    if (c.engine == o.engine) h = WithKeys(h, KeysOf(c));
  return WithKeys(h, o.engine_host_keys);
}

namespace {

// The first-token path (API server, tokenisation, first streamed chunk): PR #17866's V1 TTFT less dlsim's
// own first-token time for that run (engine_host.csv); no release-specific source for 0.5 / 0.6.
constexpr double kFirstTokenUs = 17'057;

// vLLM 0.5 / 0.6 (engine_host.csv): the step (0.5: the v0.6.0 post's light-load token time less dlsim's GPU
// time, less one request's output processing and streaming, the API server in the engine's process; 0.6: RFC
// #6854's 4 ms bubble), 103 us of output processing per request (#6913), 194 us of AsyncLLMEngine streaming
// per request per chunk (PR #8092: offline 34.8 against served 14.9 requests/s), the first-token path derived
// from PR #17866.
EngineHost VllmV0Host(double step_us, bool async_output) {
  return {.step = Micros(step_us),
          .per_request = Micros(103),
          .async_output = async_output,
          .stream = Micros(194),
          .first_token = Micros(kFirstTokenUs)};
}

// The vLLM releases: 0.5.4 and 0.6.0 (prefill-first, 256 sequences) and V1 (chunked prefill always on).
void AddVllmProfiles(const EngineProfile& def, std::vector<EngineProfile>& p) {
  EngineProfile v05 = def;
  v05.name = "vllm-0.5";
  v05.description = "vLLM 0.5.4: custom all-reduce up to 8 MiB, 256 sequences, no chunked prefill";
  v05.scheduler = "vllm";
  v05.max_num_seqs = 256;
  v05.max_batched_tokens_from_model = true;
  v05.host = VllmV0Host(6'089, false);
  // vllm/attention/selector.py (_which_attn_to_use, @00138596, 2024; the same default through 0.6): the
  // FLASH_ATTN backend (vllm-flash-attn, FlashAttention-2) on compute capability >= 8.0 in fp16/bf16;
  // xformers on Volta and Turing, which have no measured family here (priced as `model`).
  v05.attention_backend = cost::AttentionBackend::kFlash2;
  // PR #5908 (v0.5.1, Gemma 2): "vLLM currently ignores it and uses global attention for all layers" and caps
  // the length to the window; an all-windowed model keeps its window (the V0 block manager's sliding window).
  v05.interleaved_window = false;
  v05.interleaved_window_kv = false;
  p.push_back(v05);
  EngineProfile v06 = v05;
  v06.name = "vllm-0.6";
  v06.description = "vLLM 0.6.0: as 0.5.4, output processing asynchronous (multi-step off by default)";
  v06.host = VllmV0Host(4'000, true);
  // vllm/engine/async_llm_engine.py step_async at v0.6.0: step N's output is queued unprocessed
  // (ctx.output_queue), processed by the async callback while step N+1 executes, and returned (streamed) with
  // step N+1's call; drained at once when no request is unfinished.
  v06.host.async_output_lags = true;
  p.push_back(v06);
  EngineProfile v1 = def;
  v1.name = "vllm-v1";
  v1.description = "vLLM V1 (0.8): chunked prefill always on, 1024 sequences, 8192 tokens per step";
  v1.scheduler = "sarathi";
  v1.max_num_seqs = 1024;
  v1.max_batched_tokens = 8192;
  // vllm/engine/arg_utils.py, _set_default_args_v1: "V1 always uses chunked prefills and prefix caching"
  // (enable_prefix_caching True unless set).
  v1.prefix_caching = true;
  // V1 (engine_host.csv): the step derived from PR #17866's TPOT, 1.1 us per request (#46112).
  v1.host = {.step = Micros(1'137),
             .per_request = Duration::Nanos(1'100),
             .async_output = true,
             .first_token = Micros(kFirstTokenUs)};
  // PR #14097 (2025-03, "Implement sliding window attention in kv_cache_manager"): blocks outside the window
  // dropped for an all-windowed model; "for models with global attention + sliding window attention, still
  // regard as global-attention-only model in kv cache manager". The attention backend applies each layer's
  // window.
  v1.interleaved_window_kv = false;
  p.push_back(v1);
  // vLLM 0.14 and later: V1 with asynchronous scheduling on by default (PR #27614 made it the default where
  // compatible, PR #31998 (v0.14.0) extended it to speculative decoding; vllm/config/scheduler.py: "If set to
  // False, disable async scheduling"). The same CPU costs, overlapped with the GPU (engine_host.h).
  EngineProfile v014 = v1;
  v014.name = "vllm-0.14";
  v014.description = "vLLM 0.14+ (V1): as vllm-v1, scheduling asynchronous (one step ahead of the GPU)";
  v014.host.async_scheduling = true;
  // The hybrid KV cache manager (RFC #11382, PRs split out of #16101; docs/design/hybrid_kv_cache_manager):
  // windowed layers keep only their window's blocks (freed the step after they leave it, PR #30166).
  v014.interleaved_window_kv = true;
  p.push_back(v014);
}

// SGLang v0.4.1 (server_args.py @efc52f85: chunked_prefill_size 8192, 2048 below ~25 GB, L183-187; chunked
// prefill and the overlap scheduler on by default; max_running_requests from the KV pool, clamped to
// 2048-4096, model_runner.py L526-535: the lower bound here) and TensorRT-LLM's LLM API / trtllm-serve
// (builder.py
// @be178810, main at 0.17.0.dev of 2024-12-16, L480-482: max_batch_size 2048, max_num_tokens 8192;
// llm_utils.py L430: chunked prefill off; GUARANTEED_NO_EVICT, which reserves each request's KV for its whole
// length, as dlsim's orca does), and SplitwiseSim's engine.
void AddOtherProfiles(const EngineProfile& def, std::vector<EngineProfile>& p) {
  EngineProfile sg = def;
  sg.name = "sglang";
  sg.description =
      "SGLang 0.4: vLLM's custom all-reduce; chunked prefill 8192 tokens (2048 below 25 GB), overlap "
      "scheduler";
  sg.scheduler = "sarathi";
  sg.max_num_seqs = 2048;
  sg.max_batched_tokens = 8192;
  sg.small_gpu_batched_tokens = 2048;
  sg.small_gpu_gib = 25;
  sg.prefix_caching = true;  // server_args.py: disable_radix_cache False (the radix cache is on)
  // Gemma 2's window computed through FlashInfer since PR #1056 (2024-08); saving the windowed layers' KV (PR
  // #1151) was closed to wait for a memory-pool refactor: one token pool for every layer in 0.4.1.
  sg.interleaved_window_kv = false;
  p.push_back(sg);
  EngineProfile trt = def;
  trt.name = "trtllm";
  trt.description =
      "TensorRT-LLM LLM API: one-shot all-reduce below 1 MB / 500 KB; 2048 sequences, 8192 tokens, KV "
      "reserved";
  trt.custom_max_bytes_small_world = 1e6;
  trt.custom_max_bytes_large_world = 5e5;
  trt.custom_worlds = {2, 3, 4, 5, 6, 7, 8};
  trt.scheduler = "orca";
  trt.max_num_seqs = 2048;
  trt.max_batched_tokens = 8192;
  trt.reserve_tokens = 1;  // each request's own prompt + output
  // One full-context KV pool for every layer unless kv_cache_config.max_attention_window is given (PR #18767
  // describes the KV manager before it derived per-layer windows from layer_types).
  trt.interleaved_window_kv = false;
  p.push_back(trt);
  EngineProfile sw = def;
  sw.name = "splitwise-2023";
  sw.description =
      "the engine SplitwiseSim profiled (2023): NCCL for every all-reduce plus a fitted host overhead";
  sw.allreduce = TpAllReduce::kNcclFitted;
  p.push_back(sw);
}

}  // namespace

WindowedAttention EngineProfile::WindowOf(const model::ModelSpec& model) const {
  WindowedAttention w;
  const bool interleaved = model.HasInterleavedWindow();
  if (model.WindowedLayers() <= 0 || (interleaved && !interleaved_window)) return w;
  w.window = model.sliding_window;
  w.compute_share = model.WindowedLayerShare();
  w.kv_share = !interleaved || interleaved_window_kv ? w.compute_share : 0.0;
  return w;
}

int64_t EngineProfile::ContextCapOf(const model::ModelSpec& model) const {
  return !interleaved_window && model.HasInterleavedWindow() ? model.sliding_window : 0;
}

Status CheckContextCap(const ServeOptions& o, const std::vector<Request>& requests) {
  auto engine = FindEngine(o.engine);
  const int64_t cap = engine.ok() ? (*engine)->ContextCapOf(o.model) : 0;
  if (cap <= 0) return Status::Ok();
  int64_t longer = 0, longest = 0;
  for (const Request& r : requests) {
    const int64_t tokens = int64_t{r.prompt} + r.output;
    if (tokens <= cap) continue;
    ++longer;
    longest = std::max(longest, tokens);
  }
  if (longer == 0) return Status::Ok();
  return Error::Infeasible(fmt::format(
      "{} of {} requests are longer than {} serves {}: it runs the interleaved sliding window as global "
      "attention and caps the context to the {}-token window (vLLM PR #5908), and the longest has {} tokens: "
      "cap the lengths or use an engine that computes the window (vllm-v1, vllm-0.14)",
      longer, requests.size(), o.engine, o.model.name, cap, longest));
}

WindowedAttention WindowOf(const ServeOptions& o) {
  auto e = FindEngine(o.engine);
  return (e.ok() ? **e : EngineProfiles().front()).WindowOf(o.model);
}

cost::AttentionBackend AttentionBackendOf(const ServeOptions& o) {
  if (o.attention_backend) return *o.attention_backend;
  auto e = FindEngine(o.engine);
  return e.ok() ? (*e)->attention_backend.value_or(cost::AttentionBackend::kModel)
                : cost::AttentionBackend::kModel;
}

const std::vector<EngineProfile>& EngineProfiles() {
  static const std::vector<EngineProfile> kProfiles = [] {
    std::vector<EngineProfile> p;
    EngineProfile def;
    def.name = "default";
    def.description = "vLLM's custom all-reduce rule, dlsim's scheduler defaults (docs/serving.md)";
    p.push_back(def);
    AddVllmProfiles(def, p);
    AddOtherProfiles(def, p);
    return p;
  }();
  return kProfiles;
}

Result<const EngineProfile*> FindEngine(std::string_view name) {
  std::vector<std::string> names;
  for (const EngineProfile& e : EngineProfiles()) {
    if (e.name == name) return &e;
    names.push_back(e.name);
  }
  return Error::InvalidArgument(UnknownNameMessage("engine", name, names));
}

}  // namespace dlsim::serve
