// Options of one serving simulation (`dlsim serve FILE`): plain, validated structs.
//
// io::ParseServeScenario() builds them from YAML (keys and defaults: docs/serving.md); tests
// build them by hand. Times are seconds (doubles) at this edge and Durations inside the
// simulator; rates are requests per second.
//
//   serve::ServeOptions o;
//   o.model = *models.Find("llama2-7b").value();
//   o.gpu = *catalog.FindGpu("a100").value();
//   o.workload.rate = 4.0;
//   o.scheduler.name = "vllm";
//
// Values; thread-safe as values.
#ifndef DLSIM_SERVE_OPTIONS_H_
#define DLSIM_SERVE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dlsim/cost/training_calibration.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/serve/engine_host.h"
#include "dlsim/serve/weight_quant.h"

namespace dlsim::serve {

// Limits of one serving simulation (docs/serving.md, "Ranges and limits"). They keep memory and the
// simulated clock in bounds; io::ParseServeScenario checks a scenario against them (with these
// numbers in its messages) and GenerateRequests / Simulate check hand-built options again.
inline constexpr int64_t kMaxRequests = 10'000'000;      // per run; each holds about 130 B of state
inline constexpr int kMaxReplicas = 10'000;              // every arrival's routing scans the replicas
inline constexpr int64_t kMaxTokens = int64_t{1} << 24;  // a prompt, an output, a token budget (16,777,216)
inline constexpr double kMaxArrivalSeconds = 1e8;        // the last arrival (about 3.2 years)
// Output tokens of all requests together: each is a decode step to simulate (about 4e7 a second), so this
// bounds a run's time (about 2 minutes); 10,000,000 requests of 400 output tokens fit.
inline constexpr int64_t kMaxDecodeSteps = int64_t{1} << 32;
// Shared-prefix groups of a sampled workload (WorkloadOptions::shared_prefix).
inline constexpr int kMaxPrefixGroups = 1'000'000;
// Scheduler iterations of all replicas together (about 1e6 a second: a few minutes); many lightly loaded
// replicas run small batches, so their iterations, not the output tokens, bound the run's time.
inline constexpr int64_t kMaxIterations = int64_t{1} << 28;

enum class ArrivalKind { kPoisson, kGamma, kTrace };

// A distribution of token counts. Samples are rounded and clamped to [min, max].
struct LengthDistribution {
  enum class Kind { kLognormal, kFixed, kUniform, kEmpirical };
  Kind kind = Kind::kLognormal;
  double median = 600;           // lognormal: exp(mu)
  double sigma = 0.8;            // lognormal: sigma of the underlying normal
  double value = 0;              // fixed
  double low = 1, high = 1;      // uniform, inclusive
  std::vector<double> values{};  // empirical: sampled uniformly (e.g. a column of a trace file)
  int64_t min = 1;
  int64_t max = 1 << 20;
};

// One request of a trace file: arrival time (s from the start), lengths, and its prompt's prefix chunks
// (Mooncake's hash_ids): prefix_chunks ids from WorkloadOptions::prefix_hashes[prefix_first], one per
// prefix_block_tokens tokens of the prompt; two requests share a prefix as far as their ids agree.
struct TraceEntry {
  double arrival_s = 0;
  int64_t prompt_tokens = 0;
  int64_t output_tokens = 0;
  int32_t prefix_first = 0;
  int32_t prefix_chunks = 0;
};

// A shared prompt prefix of sampled requests (a system prompt, a few-shot preamble): the first `tokens`
// tokens of every prompt (all of a shorter one) are one of `groups` prefixes, drawn uniformly per request.
struct SharedPrefix {
  int64_t tokens = 0;  // 0 = none
  int groups = 1;
};

struct WorkloadOptions {
  ArrivalKind arrival = ArrivalKind::kPoisson;
  double rate = 4.0;  // requests per second (all replicas together); 0 only with concurrency: all ready at 0
  // Closed loop (benchmark_serving's --max-concurrency): at most `concurrency` requests in flight; a request
  // is sent at the later of its arrival and the finish of an earlier one, and its TTFT and end-to-end count
  // from that send. 0 = open loop (every request sent at its arrival).
  int64_t concurrency = 0;
  double cv = 1.0;        // gamma: coefficient of variation of inter-arrival times
  int64_t requests = 0;   // number of requests; 0 when duration_s is used
  double duration_s = 0;  // arrivals stop after this time when requests == 0
  LengthDistribution prompt;
  LengthDistribution output{.median = 200};
  std::vector<TraceEntry> trace;  // arrival == kTrace: the requests, sorted by arrival
  // false: the trace gives lengths only (ShareGPT), in file order; the requests arrive as a Poisson process
  // at `rate` (as vLLM's benchmark_serving --request-rate sends them).
  bool trace_arrivals = true;
  // Prefix caching's view of the prompts: the trace's chunk ids (TraceEntry::prefix_first), or a shared
  // prefix drawn per request; a chunk is prefix_block_tokens tokens (0 = the KV block size), a multiple of
  // the KV block size.
  std::vector<uint64_t> prefix_hashes;
  SharedPrefix shared_prefix;
  int64_t prefix_block_tokens = 0;
  uint64_t seed = 0;
};

struct HardwareOptions {
  int tp = 1;
  int pp = 1;
  // MoE models: 1 = each expert split over the tp GPUs (vLLM's default), tp = experts spread whole over them
  // (expert parallelism; tp divides the experts).
  int ep = 1;
  int replicas = 1;
  double memory_margin = 0.1;  // fraction of HBM kept free (Vidur's memory_margin_fraction)
  // A locked SM clock in MHz (`nvidia-smi -lgc`; `hardware.sm_clock_mhz`), as training's. ServeOptions::gpu
  // already carries it (hw::LockSmClock, HBM unchanged); kept to write it back and to name it in the report.
  std::optional<double> sm_clock_mhz;
};

enum class Preemption { kRecompute, kSwap };

struct SchedulerOptions {
  std::string name = "vllm";           // serving-scheduler registry name
  std::string router = "round-robin";  // router registry name
  int block_size = 16;                 // tokens per KV block
  double watermark = 0.01;             // fraction of blocks kept free when admitting prefills
  int max_batch_size = 128;            // requests per iteration
  int64_t max_batched_tokens = 4096;   // tokens per iteration (prefill-only schedulers)
  int64_t chunk_size = 512;            // sarathi: token budget per iteration
  Preemption preemption = Preemption::kRecompute;
  int prefill_replicas = 1;     // distserve: replicas in the prefill pool
  int decode_replicas = 1;      // distserve: replicas in the decode pool
  double kv_transfer_gbps = 0;  // distserve: GB/s between pools; 0 = the GPU's NVLink
  int64_t max_seq_len = 4096;   // orca: KV reserved per request (prompt + output cap)
  // Automatic prefix caching (vLLM's enable_prefix_caching, SGLang's radix cache): full chunks of a prompt
  // whose KV is still in the cache are not prefilled again (serve/prefix_cache.h).
  bool prefix_caching = false;
};

enum class OffloadMode { kNone, kStatic, kSelectN };
// What an offloaded layer keeps in host memory: its weights, or its weights and its KV cache (the
// paper's "LLM state"; docs/serving.md, "Offloading", says why select-n defaults to both).
enum class OffloadState { kWeights, kWeightsAndKv };

// Host-memory offloading of weights (and KV cache) over PCIe.
struct OffloadOptions {
  OffloadMode mode = OffloadMode::kNone;
  // static (FlexGen / DeepSpeed ZeRO-Inference style): fraction of every layer's weights, and of
  // every layer's KV cache, kept in host memory and streamed in each iteration, prefetching one layer
  // ahead (FlexGen's wc/cc placement; ZeRO-Inference: weight_fraction 1, kv_fraction 0).
  double weight_fraction = 1.0;
  double kv_fraction = 0.0;
  // select-n: what an offloaded layer keeps in host memory.
  OffloadState state = OffloadState::kWeightsAndKv;
  // select-n: the smallest interval allowed (every i-th layer in host memory); 0 = derived
  // offline from the TPOT SLO.
  int min_interval = 0;
  // select-n: admit requests only up to the batch its offline performance record says meets the
  // TPOT SLO at the running context (the paper's controller); false: memory alone limits admission.
  bool slo_admission = true;
  double pcie_gbps = 0;          // host-to-device GB/s per direction; 0 = from the GPU's PCIe gen/lanes
  int gpus_per_pcie_bus = 1;     // replicas sharing one host bus (contention)
  double host_memory_gib = 512;  // host memory available for offloaded state
};

// Speculative decoding (Leviathan et al., ICML 2023): each decode step verifies `num_tokens` draft tokens per
// request in one target pass of 1 + num_tokens queries; with each draft token accepted independently with
// probability `acceptance_rate` (alpha) a step yields (1 - alpha^(k+1)) / (1 - alpha) tokens on average
// (their Eq. 1). The draft is `draft` (run k times per step, on the replica's GPUs with its TP), or none
// (n-gram / prompt lookup: drafting costs nothing on the GPU).
struct SpeculativeOptions {
  int num_tokens = 0;  // k; 0 = off
  double acceptance_rate = 0;
  std::optional<model::ModelSpec> draft;
  // Expected tokens one verification step yields.
  double TokensPerStep() const;
};

struct SloOptions {
  double ttft_s = 2.0;
  double tpot_s = 0.1;
};

// The scenario names of the enums above (io reads them, the resolved inputs and summaries write them), and
// the name of a value in such a table ("?" when absent).
inline constexpr std::pair<std::string_view, ArrivalKind> kArrivalNames[] = {
    {"poisson", ArrivalKind::kPoisson}, {"gamma", ArrivalKind::kGamma}, {"trace", ArrivalKind::kTrace}};
inline constexpr std::pair<std::string_view, LengthDistribution::Kind> kLengthDistributionNames[] = {
    {"lognormal", LengthDistribution::Kind::kLognormal},
    {"fixed", LengthDistribution::Kind::kFixed},
    {"uniform", LengthDistribution::Kind::kUniform}};
inline constexpr std::pair<std::string_view, Preemption> kPreemptionNames[] = {
    {"recompute", Preemption::kRecompute}, {"swap", Preemption::kSwap}};
inline constexpr std::pair<std::string_view, OffloadMode> kOffloadModeNames[] = {
    {"none", OffloadMode::kNone}, {"static", OffloadMode::kStatic}, {"select-n", OffloadMode::kSelectN}};
inline constexpr std::pair<std::string_view, OffloadState> kOffloadStateNames[] = {
    {"weights", OffloadState::kWeights}, {"weights_and_kv", OffloadState::kWeightsAndKv}};
template <typename E, size_t N>
std::string_view NameIn(const std::pair<std::string_view, E> (&names)[N], E value) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return "?";
}

struct ServeOptions {
  std::string name;  // scenario name (file stem)
  model::ModelSpec model;
  hw::GpuSpec gpu;
  HardwareOptions hardware;
  WorkloadOptions workload;
  SchedulerOptions scheduler;
  OffloadOptions offload;
  SpeculativeOptions speculative;
  SloOptions slo;
  // Unstructured sparsity of the decoder layers' linear weights (Flash-LLM): 0 = dense. With
  // sparsity > 0 they are stored in Tiled-CSL (4 bytes per non-zero) and priced by
  // cost::ComputeModel::SparseWeightGemm; embeddings and the LM head stay dense.
  double weight_sparsity = 0.0;
  std::string compute_model = "roofline";  // cost.model: prices kernels without a measured profile
  std::string engine = "default";          // serving-engine profile (serve/engine_profile.h)
  // The prefill attention kernel family (`attention_backend:`; cost/compute_calibration.h): unset, the
  // engine's (EngineProfile::attention_backend), else `model`. A family the GPU's architecture has no
  // measured constants for is priced as `model`. Decode attention is the paged kernel whatever this says.
  std::optional<cost::AttentionBackend> attention_backend;
  // How the layer's memory-bound work runs (`kernels:`): fused, as serving engines run it (norms, rotary
  // embedding, activation and residual adds each one kernel), or eager, one kernel per PyTorch tensor
  // operation as a plain PyTorch decoder runs it (model::EagerLayerOps' forward bytes; dense models
  // without MLA; a measured operator profile is then not used).
  model::Kernels kernels = model::Kernels::kFused;
  // The engine's CPU time (serve/engine_host.h, HostOf): the profile's, then a calibration file's for this
  // engine (`--calibration`, `serving_engines:`; the commands copy the catalogs' in), then the scenario's
  // `engine_host:` keys. `engine_host`, when set, replaces all three (for callers that price a host exactly).
  std::vector<cost::EngineHostCalibration> engine_calibrations;
  EngineHostKeys engine_host_keys;
  std::optional<EngineHost> engine_host;
  // Precision of the stored weights and of the KV cache (model.weight_dtype, model.kv_cache_dtype): fp16/bf16
  // (2 bytes) or fp8 (1 byte; FP8 checkpoints, vLLM's kv_cache_dtype fp8). FP8 weights run FP8 GEMMs.
  hw::DType weight_dtype = hw::DType::kFp16;
  hw::DType kv_dtype = hw::DType::kFp16;
  // Weight-only quantization of the linear layers (model.weight_dtype: int4 or int8, read with weight_dtype
  // fp16: the activations and the tensor cores stay 16-bit; serve/weight_quant.h).
  WeightQuant weight_quant = WeightQuant::kNone;
  int64_t max_iterations = kMaxIterations;  // the simulation stops with an error past it (tests lower it)
  bool keep_records = false;  // ServeResult::records: one per request (memory grows with the requests)
};

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_OPTIONS_H_
