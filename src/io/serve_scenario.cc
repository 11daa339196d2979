#include "dlsim/io/serve_scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <utility>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cost_section.h"
#include "dlsim/io/hf_config.h"
#include "dlsim/io/launch_config.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/serve_trace_formats.h"
#include "dlsim/io/yaml_reader.h"
#include "dlsim/serve/engine_profile.h"
#include "serve_engine_host.h"
#include "serve_hardware_section.h"
#include "serve_moe_checks.h"
#include "serve_speculative.h"
#include "serve_trace_section.h"

namespace dlsim::io {
namespace {

using serve::ArrivalKind;
using serve::LengthDistribution;
using serve::OffloadMode;
using serve::Preemption;

// Every row's value in `column`, read as a scenario value is (io::ParseNumber: decimal, finite, in
// `range`, an integer when `integral`); the first bad cell is the error, "FILE:LINE:COL: column 'c': ...".
Result<std::vector<double>> NumberColumn(const CsvTable& table, std::string_view column, const Range& range,
                                         bool integral) {
  DLSIM_ASSIGN_OR_RETURN(size_t c, table.Column(column));
  std::vector<double> out;
  out.reserve(table.rows.size());
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const std::string& cell = table.rows[r][c];
    auto v = ParseNumber(cell, range, integral);
    if (!v.ok()) {
      return Error::Parse(table.Where(r, c) + ": column '" + std::string(column) + "': " + v.error().message +
                          (cell.find('"') != std::string::npos ? "; cells are not quoted" : ""));
    }
    out.push_back(*v);
  }
  return out;
}

// A token column of a CSV data file; errors are recorded at `key` of `m`.
std::vector<double> ReadColumn(const MapReader& m, std::string_view key, const std::string& path,
                               const std::string& column) {
  auto text = ReadTextFile(path);  // a regular file of at most MaxInputFileBytes()
  if (!text.ok()) {
    m.AddError(key, text.error().message);
    return {};
  }
  auto values = ParseTokenColumn(*text, path, column);
  if (!values.ok()) {
    m.AddError(key, values.error().message);
    return {};
  }
  if (values->empty()) m.AddError(key, path + ": the file has no rows");
  return std::move(values).value();
}

void ReadEmpiricalLengths(const MapReader& m, const std::string& base_dir, const std::string& default_column,
                          LengthDistribution& d) {
  const std::string file = m.Get<std::string>("file", "");
  const std::string column = m.Get<std::string>("column", default_column);
  d.kind = LengthDistribution::Kind::kEmpirical;
  d.values = ReadColumn(m, "file", ResolvePath(base_dir, file), column);
}

// The cross-checks of one length distribution (each key's own range is checked as it is read).
void CheckLengths(const MapReader& m, const LengthDistribution& d) {
  using Kind = LengthDistribution::Kind;
  if (d.max < d.min) m.AddError("max", "must be >= min " + std::to_string(d.min));
  if (d.kind == Kind::kFixed && !m.Has("value")) m.AddError("distribution", "fixed needs 'value'");
  if (d.kind == Kind::kUniform && d.high < d.low) m.AddError("high", "must be >= low");
  auto outside = [&](double v) { return v < static_cast<double>(d.min) || v > static_cast<double>(d.max); };
  const std::string clamp = " [" + std::to_string(d.min) + ", " + std::to_string(d.max) + "]";
  if (d.kind == Kind::kFixed && m.Has("value") && outside(d.value))
    m.AddError("value", "is outside min..max" + clamp + ", which would clamp every sample: raise max");
  if (d.kind == Kind::kUniform && (outside(d.low) || outside(d.high)))
    m.AddError(outside(d.low) ? "low" : "high", "is outside min..max" + clamp + ": raise max");
}

LengthDistribution ReadLengths(const MapReader& w, std::string_view key, LengthDistribution d,
                               const std::string& base_dir, const std::string& default_column) {
  MapReader m = w.Section(key);
  if (!m.present()) return d;
  const bool had_errors = m.document().has_errors();
  d.min = m.Get<int64_t>("min", d.min, limits::kRequestTokens);
  d.max = m.Get<int64_t>("max", d.max, limits::kRequestTokens);
  if (m.Has("file")) {
    ReadEmpiricalLengths(m, base_dir, default_column, d);
    m.Finish();
    return d;
  }
  d.kind = m.GetEnumOf("distribution", d.kind, serve::kLengthDistributionNames);
  d.median = m.Get<double>("median", d.median, limits::kRequestTokens);
  d.sigma = m.Get<double>("sigma", d.sigma, limits::kServeSigma);
  d.value = m.Get<double>("value", d.value, limits::kRequestTokens);
  d.low = m.Get<double>("low", d.low, limits::kRequestTokens);
  d.high = m.Get<double>("high", d.high, limits::kRequestTokens);
  if (m.document().has_errors() == had_errors) CheckLengths(m, d);  // only on values the file gave
  m.Finish();
  return d;
}

// requests / rate and rate x duration_s: the arrivals must fit the clock and the request limit.
void CheckArrivalVolume(const MapReader& w, const serve::WorkloadOptions& o) {
  if (o.arrival == ArrivalKind::kTrace || w.document().has_errors() || o.rate == 0) return;
  if (o.requests > 0 && static_cast<double>(o.requests) / o.rate > serve::kMaxArrivalSeconds) {
    w.AddError(w.Has("rate") ? "rate" : "requests",
               FormatNumber(static_cast<double>(o.requests), 6) + " requests at " + FormatNumber(o.rate, 6) +
                   " req/s arrive over about " + FormatNumber(static_cast<double>(o.requests) / o.rate, 3) +
                   " s; at most " + FormatNumber(serve::kMaxArrivalSeconds, 3) +
                   " s of arrivals (about 3.2 years): raise rate or give fewer requests");
  }
  const double expected = o.rate * o.duration_s;
  if (o.duration_s > 0 && expected > static_cast<double>(serve::kMaxRequests)) {
    w.AddError("duration_s", "rate x duration_s = " + FormatNumber(expected, 6) +
                                 " expected requests; at most " + std::to_string(serve::kMaxRequests) +
                                 " (a memory limit): shorten duration_s or split the run");
  }
}

// The fewest output tokens one request of `d` can draw: its clamp's min, or more for a fixed value, a
// uniform's low end, an empirical list's least value.
double LeastTokens(const LengthDistribution& d) {
  using Kind = LengthDistribution::Kind;
  double least = static_cast<double>(d.min);
  if (d.kind == Kind::kFixed) least = d.value;
  if (d.kind == Kind::kUniform) least = d.low;
  if (d.kind == Kind::kEmpirical && !d.values.empty())
    least = *std::min_element(d.values.begin(), d.values.end());
  return std::clamp(least, static_cast<double>(d.min), static_cast<double>(std::max(d.min, d.max)));
}

// Every output token is a decode step to simulate: at least requests x the least output (or the
// trace's total) must stay within serve::kMaxDecodeSteps. GenerateRequests checks the sampled total.
void CheckDecodeWork(const MapReader& w, const serve::WorkloadOptions& o) {
  if (w.document().has_errors()) return;
  const bool trace = o.arrival == ArrivalKind::kTrace;
  double steps = 0;
  if (trace) {
    const size_t n = o.requests > 0 ? std::min<size_t>(o.requests, o.trace.size()) : o.trace.size();
    for (size_t i = 0; i < n; ++i) steps += static_cast<double>(o.trace[i].output_tokens);
  } else {
    const double n = o.requests > 0 ? static_cast<double>(o.requests) : o.rate * o.duration_s;
    steps = n * LeastTokens(o.output);
  }
  if (steps <= static_cast<double>(serve::kMaxDecodeSteps)) return;
  w.AddError(trace ? "trace_file" : (w.Has("output_tokens") ? "output_tokens" : "requests"),
             "the requests ask for " + std::string(trace ? "" : (o.requests > 0 ? "at least " : "about ")) +
                 FormatNumber(steps, 6) + " output tokens in all; at most " +
                 std::to_string(serve::kMaxDecodeSteps) +
                 " per run (a time limit: each is a decode step to simulate, about 4e7 a second): give "
                 "fewer requests or shorter outputs");
}

serve::WorkloadOptions ReadWorkload(const MapReader& w, const std::string& base_dir) {
  serve::WorkloadOptions o;
  o.arrival = w.GetEnumOf("arrival", o.arrival, serve::kArrivalNames);
  o.rate = w.Get<double>("rate", o.rate, limits::kRequestRate);
  o.cv = w.Get<double>("cv", o.cv, limits::kArrivalCv);
  o.requests = w.Get<int64_t>("requests", 0, limits::kRequests);
  o.duration_s = w.Get<double>("duration_s", 0, limits::kDurationSeconds);
  o.seed = static_cast<uint64_t>(w.Get<int64_t>("seed", 0, limits::kSeed));
  o.concurrency = w.Get<int64_t>("concurrency", 0, limits::kRequests);
  if (w.Has("concurrency") && !w.Has("rate")) o.rate = 0;  // benchmark_serving's default: all ready at once
  if (o.rate == 0 && w.Has("duration_s"))
    w.AddError("duration_s", "with concurrency and no rate every request is ready at once: give requests");
  if (w.Has("cv") && o.arrival != ArrivalKind::kGamma) w.AddError("cv", "only used with arrival: gamma");
  if (w.Has("requests") && w.Has("duration_s"))
    w.AddError("duration_s", "give requests or duration_s, not both");
  if (!w.Has("requests") && !w.Has("duration_s") && o.arrival != ArrivalKind::kTrace) o.requests = 20000;
  o.prompt = ReadLengths(w, "prompt_tokens", o.prompt, base_dir, "num_prefill_tokens");
  o.output = ReadLengths(w, "output_tokens", o.output, base_dir, "num_decode_tokens");
  internal::ReadTrace(w, base_dir, o);
  internal::ReadPrefixes(w, o);
  CheckArrivalVolume(w, o);
  internal::CheckTraceWindow(w, o);
  CheckDecodeWork(w, o);
  w.Finish();
  return o;
}

void ReadName(const MapReader& m, std::string_view key, const std::vector<std::string>& allowed,
              std::string& out) {
  std::optional<std::string> v = m.Find<std::string>(key);
  if (!v) return;
  if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
    std::string msg = "unknown name '" + *v + "'";
    if (auto c = ClosestMatch(*v, allowed)) msg += " (did you mean '" + *c + "'?)";
    m.AddError(key, msg + "; allowed: " + Join(allowed, ", "));
    return;
  }
  out = *v;
}

serve::SchedulerOptions ReadScheduler(const MapReader& s, const ServeNames& names,
                                      const serve::SchedulerOptions& defaults) {
  serve::SchedulerOptions o = defaults;
  ReadName(s, "name", names.schedulers, o.name);
  ReadName(s, "router", names.routers, o.router);
  o.block_size = s.Get<int>("block_size", o.block_size, limits::kBlockSize);
  o.watermark = s.Get<double>("watermark", o.watermark, limits::kWatermark);
  o.max_batch_size = s.Get<int>("max_batch_size", o.max_batch_size, limits::kMaxBatchSize);
  o.max_batched_tokens = s.Get<int64_t>("max_batched_tokens", o.max_batched_tokens, limits::kRequestTokens);
  o.chunk_size = s.Get<int64_t>("chunk_size", o.chunk_size, limits::kRequestTokens);
  o.preemption = s.GetEnumOf("preemption", o.preemption, serve::kPreemptionNames);
  o.prefill_replicas = s.Get<int>("prefill_replicas", o.prefill_replicas, limits::kServeReplicas);
  o.decode_replicas = s.Get<int>("decode_replicas", o.decode_replicas, limits::kServeReplicas);
  o.kv_transfer_gbps = s.Get<double>("kv_transfer_gbps", o.kv_transfer_gbps, limits::kKvLinkGbps);
  o.max_seq_len = s.Get<int64_t>("max_seq_len", o.max_seq_len, limits::kRequestTokens);
  o.prefix_caching = s.Get<bool>("prefix_caching", o.prefix_caching);
  for (const char* k : {"prefill_replicas", "decode_replicas", "kv_transfer_gbps"}) {
    if (s.Has(k) && o.name != "distserve") s.AddError(k, "only used with name: distserve");
  }
  if (s.Has("chunk_size") && o.name != "sarathi") s.AddError("chunk_size", "only used with name: sarathi");
  if (s.Has("max_seq_len") && o.name != "orca") s.AddError("max_seq_len", "only used with name: orca");
  s.Finish();
  return o;
}

serve::OffloadOptions ReadOffload(const MapReader& m) {
  serve::OffloadOptions o;
  o.mode = m.GetEnumOf("mode", o.mode, serve::kOffloadModeNames);
  o.weight_fraction = m.Get<double>("weight_fraction", o.weight_fraction, Range::Between(0, 1));
  o.kv_fraction = m.Get<double>("kv_fraction", o.kv_fraction, Range::Between(0, 1));
  o.state = m.GetEnumOf("state", o.state, serve::kOffloadStateNames);
  o.slo_admission = m.Get<bool>("slo_admission", o.slo_admission);
  o.min_interval = m.Get<int>("min_interval", o.min_interval, limits::kOffloadInterval);
  o.pcie_gbps = m.Get<double>("pcie_gbps", o.pcie_gbps, limits::kPcieGbps);
  o.gpus_per_pcie_bus = m.Get<int>("gpus_per_pcie_bus", o.gpus_per_pcie_bus, limits::kGpusPerPcieBus);
  o.host_memory_gib = m.Get<double>("host_memory_gib", o.host_memory_gib, limits::kHostMemoryGib);
  if (m.Has("weight_fraction") && o.mode != OffloadMode::kStatic)
    m.AddError("weight_fraction", "only used with mode: static");
  if (m.Has("kv_fraction") && o.mode != OffloadMode::kStatic)
    m.AddError("kv_fraction", "only used with mode: static");
  for (const char* key : {"min_interval", "state", "slo_admission"}) {
    if (m.Has(key) && o.mode != OffloadMode::kSelectN) m.AddError(key, "only used with mode: select-n");
  }
  m.Finish();
  return o;
}

// Reads the model section of `root` into `spec`: a catalog entry, shape keys override.
// model.weight_dtype / kv_cache_dtype: fp16, bf16 or fp8.
hw::DType ReadStorageDType(const MapReader& m, const char* key) {
  return m.GetEnum(key, hw::DType::kFp16,
                   {{"fp16", hw::DType::kFp16}, {"bf16", hw::DType::kBf16}, {"fp8", hw::DType::kFp8}});
}

// model.weight_dtype: a storage dtype, or int4 / int8: 4- or 8-bit weights in groups of 128 with 16-bit
// activations (GPTQ / AWQ / RTN checkpoints on Marlin's kernels, serve/weight_quant.h).
void ReadWeightDType(const MapReader& m, serve::ServeOptions& o) {
  const serve::WeightPrecision p =
      m.GetEnumOf("weight_dtype", serve::WeightPrecision{}, serve::kWeightPrecisionNames);
  o.weight_dtype = p.dtype;
  o.weight_quant = p.quant;
}

void ReadServeModel(const MapReader& root, const Document& doc, const model::ModelCatalog& models,
                    serve::ServeOptions& o) {
  model::ModelSpec& spec = o.model;
  MapReader m = root.Section("model");
  if (root.present() && !root.Has("model")) doc.AddError(root.location(), "model", "missing section 'model'");
  // A launch configuration gives the shape (its layout is training's); a failed load requires no shape keys.
  const std::optional<LaunchConfig> launch = ReadLaunchKey(m, models);
  if (launch) spec = launch->model;
  ReadHfConfigKey(m, spec);  // its errors are the document's
  if (std::optional<std::string> name = m.Find<std::string>("name")) {
    auto found = models.Find(*name);
    if (found.ok())
      spec = **found;
    else
      m.AddError("name", found.error().message);
  }
  bool is_new = !m.Has("name") && !m.Has("hf_config");
  for (std::string_view key : kLaunchKeys) is_new = is_new && !m.Has(key);
  if (is_new) spec.name = "custom";
  o.weight_sparsity = m.Get<double>("weight_sparsity", 0.0, Range::Between(0.0, 0.99));
  ReadWeightDType(m, o);
  o.kv_dtype = ReadStorageDType(m, "kv_cache_dtype");
  if (o.weight_sparsity > 0 &&
      (o.weight_dtype == hw::DType::kFp8 || o.weight_quant != serve::WeightQuant::kNone))
    m.AddError(
        "weight_dtype",
        "fp8, int4 or int8 weights with weight_sparsity: the sparse-weight kernel is fp16 (Flash-LLM)");
  ReadModelShape(m, spec, is_new);
  m.Finish();
}

// FP8 weights or KV cache need a GPU with FP8 tensor cores (vLLM's FP8 paths run on Hopper and later); int4
// and int8 weights a GPU that runs Marlin's kernels (compute capability 8.0 or newer).
void CheckPrecisionOnGpu(const MapReader& m, const serve::ServeOptions& o) {
  if (o.weight_quant != serve::WeightQuant::kNone && !serve::RunsMarlinWeights(o.gpu))
    m.AddError("weight_dtype", std::string(serve::WeightQuantName(o.weight_quant)) +
                                   " weights run on Marlin's kernels, which need compute capability 8.0 or "
                                   "newer (Ampere and later); " +
                                   o.gpu.name + " is " + o.gpu.architecture + ": use fp16");
  if (o.gpu.Peak(hw::DType::kFp8).value() > 0) return;
  for (const auto& [key, dt] :
       {std::pair<const char*, hw::DType>{"weight_dtype", o.weight_dtype}, {"kv_cache_dtype", o.kv_dtype}})
    if (dt == hw::DType::kFp8)
      m.AddError(key, "fp8 needs FP8 tensor cores, which " + o.gpu.name + " does not have; use fp16 or bf16");
}

// Reads the slo section into `o` (absent keys keep their defaults).
void ReadSlo(const MapReader& slo, serve::SloOptions& o) {
  o.ttft_s = slo.Get<double>("ttft_s", o.ttft_s, limits::kSloSeconds);
  o.tpot_s = slo.Get<double>("tpot_s", o.tpot_s, limits::kSloSeconds);
  slo.Finish();
}

// The largest prompt `d` can draw when it is explicit data (a file's values), else 0.
double LargestListed(const LengthDistribution& d) {
  if (d.kind != LengthDistribution::Kind::kEmpirical || d.values.empty()) return 0;
  return *std::max_element(d.values.begin(), d.values.end());
}

// " tokens, longer than the model's context of C tokens ...": the tail of every context error.
std::string BeyondContext(int64_t context, std::string_view shorten = "prompts") {
  return " tokens, longer than the model's context of " + std::to_string(context) +
         " tokens (model.max_seq_len): such a request can never run; shorten the " + std::string(shorten) +
         " or raise model.max_seq_len";
}

// The most tokens one request of `d` can draw when the scenario bounds it (a fixed value, a uniform's
// high end, a file's largest value, an explicit `max`), else nullopt (an unclamped lognormal).
std::optional<double> MostTokens(const LengthDistribution& d, bool has_max) {
  using Kind = LengthDistribution::Kind;
  std::optional<double> most;
  if (d.kind == Kind::kFixed) most = d.value;
  if (d.kind == Kind::kUniform) most = d.high;
  if (d.kind == Kind::kEmpirical && !d.values.empty()) most = LargestListed(d);
  if (has_max) most = std::min(most.value_or(static_cast<double>(d.max)), static_cast<double>(d.max));
  return most;
}

// A trace request whose prompt, or prompt + output, is beyond the context: the first one, at trace_file.
void CheckTraceContext(const MapReader& w, const serve::WorkloadOptions& o, int64_t context) {
  for (size_t i = 0; i < o.trace.size(); ++i) {
    const serve::TraceEntry& t = o.trace[i];
    const std::string request = "request " + std::to_string(i + 1) + " of the trace has ";
    if (t.prompt_tokens > context) {
      w.AddError("trace_file",
                 request + "a prompt of " + std::to_string(t.prompt_tokens) + BeyondContext(context));
      return;
    }
    if (t.prompt_tokens + t.output_tokens <= context) continue;
    w.AddError("trace_file", request + std::to_string(t.prompt_tokens) + " prompt + " +
                                 std::to_string(t.output_tokens) +
                                 " output = " + std::to_string(t.prompt_tokens + t.output_tokens) +
                                 BeyondContext(context, "requests"));
    return;
  }
}

// Prompt + output beyond the context: every request (the least of both), or the largest request the
// scenario bounds (the most of both, when both are bounded); recorded at output_tokens.
void CheckTotalContext(const MapReader& w, const serve::WorkloadOptions& o, int64_t context) {
  const double least_prompt = LeastTokens(o.prompt), least_output = LeastTokens(o.output);
  const double c = static_cast<double>(context);
  if (least_prompt + least_output > c) {
    w.AddError("output_tokens", "every request is at least " + FormatNumber(least_prompt, 10) + " prompt + " +
                                    FormatNumber(least_output, 10) +
                                    " output = " + FormatNumber(least_prompt + least_output, 10) +
                                    BeyondContext(context, "requests"));
    return;
  }
  const std::optional<double> prompt = MostTokens(o.prompt, w.Section("prompt_tokens").Has("max"));
  const std::optional<double> output = MostTokens(o.output, w.Section("output_tokens").Has("max"));
  if (!prompt || !output || *prompt + *output <= c) return;
  w.AddError("output_tokens", "prompts of up to " + FormatNumber(*prompt, 10) +
                                  " tokens and outputs of up to " + FormatNumber(*output, 10) +
                                  " make requests of up to " + FormatNumber(*prompt + *output, 10) +
                                  BeyondContext(context, "requests") +
                                  " (prompt_tokens.max / output_tokens.max cap them)");
}

// A request longer than the model's context (model.max_seq_len, when known) can never run: records an
// error when the scenario surely asks for one: its prompt clamp max, the least prompt it draws, a value
// of its prompt file, a request of its trace; then the same for prompt + output (CheckTotalContext).
// (A lognormal draw beyond the context is not refused: cap it with prompt_tokens.max / output_tokens.max.)
void CheckPromptContext(const MapReader& w, const serve::WorkloadOptions& o, int64_t context) {
  if (context <= 0) return;
  const std::string beyond = BeyondContext(context);
  const MapReader p = w.Section("prompt_tokens");
  if (o.arrival == ArrivalKind::kTrace) {
    CheckTraceContext(w, o, context);
  } else if (const double listed = LargestListed(o.prompt); listed > static_cast<double>(context)) {
    p.AddError("file", "the file holds a prompt of " + FormatNumber(listed, 10) + beyond);
  } else if (const double least = LeastTokens(o.prompt); least > static_cast<double>(context)) {
    const char* key = o.prompt.kind == LengthDistribution::Kind::kFixed     ? "value"
                      : o.prompt.kind == LengthDistribution::Kind::kUniform ? "low"
                                                                            : "min";
    p.AddError(key, "every prompt is at least " + FormatNumber(least, 10) + beyond);
  } else if (p.Has("max") && o.prompt.max > context) {
    p.AddError("max", "prompts of up to " + std::to_string(o.prompt.max) + beyond);
  } else {
    CheckTotalContext(w, o, context);
  }
}

// DistServe's pools are the deployment's replicas: hardware.replicas, when given, is their sum.
void CheckPools(const MapReader& h, const MapReader& s, serve::ServeOptions& o) {
  if (o.scheduler.name != "distserve") return;
  const int pools = o.scheduler.prefill_replicas + o.scheduler.decode_replicas;
  if (pools > serve::kMaxReplicas) {
    s.AddError("decode_replicas", "prefill_replicas + decode_replicas = " + std::to_string(pools) +
                                      "; at most " + std::to_string(serve::kMaxReplicas) + " replicas");
  } else if (h.Has("replicas") && o.hardware.replicas != pools) {
    h.AddError("replicas", "distserve runs prefill_replicas " + std::to_string(o.scheduler.prefill_replicas) +
                               " + decode_replicas " + std::to_string(o.scheduler.decode_replicas) + " = " +
                               std::to_string(pools) + " replicas, not " +
                               std::to_string(o.hardware.replicas) +
                               ": give pools that add up to hardware.replicas (or leave replicas out)");
  }
  o.hardware.replicas = pools;
}

}  // namespace

Result<std::vector<double>> ParseTokenColumn(std::string_view text, const std::string& file_name,
                                             const std::string& column) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable table, ParseCsv(text, file_name));
  return NumberColumn(table, column, limits::kRequestTokens, /*integral=*/true);
}

Result<std::vector<serve::TraceEntry>> ParseRequestTrace(std::string_view text,
                                                         const std::string& file_name) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable table, ParseCsv(text, file_name));
  if (table.rows.size() > static_cast<size_t>(serve::kMaxRequests)) {
    return Error::InvalidArgument(file_name + ": the trace has " + std::to_string(table.rows.size()) +
                                  " rows; at most " + std::to_string(serve::kMaxRequests) +
                                  " requests (a memory limit): split the trace");
  }
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> at,
                         NumberColumn(table, "arrived_at", limits::kArrivalSeconds, false));
  if (at.empty()) return std::vector<serve::TraceEntry>{};
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> p,
                         NumberColumn(table, "num_prefill_tokens", limits::kRequestTokens, true));
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> d,
                         NumberColumn(table, "num_decode_tokens", limits::kRequestTokens, true));
  std::vector<serve::TraceEntry> out;
  out.reserve(at.size());
  for (size_t i = 0; i < at.size(); ++i)
    out.push_back({at[i], static_cast<int64_t>(p[i]), static_cast<int64_t>(d[i])});  // checked integers
  return out;
}

Result<serve::ServeOptions> ParseServeScenario(std::string_view text, std::string file_name,
                                               const hw::Catalog& hardware, const model::ModelCatalog& models,
                                               const ServeNames& names, const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  MapReader root = doc.Root();
  serve::ServeOptions o;
  o.name = std::filesystem::path(file_name).stem().string();
  ReadServeModel(root, doc, models, o);
  MapReader h = root.Section("hardware");
  internal::ReadServeHardware(h, hardware, o);
  CheckPrecisionOnGpu(root.Section("model"), o);
  o.workload = ReadWorkload(root.Section("workload"), base_dir);
  o.engine = root.Get<std::string>("engine", o.engine);
  const auto engine = serve::FindEngine(o.engine);
  if (!engine.ok()) root.AddError("engine", engine.error().message);
  if (root.Has("attention_backend"))
    o.attention_backend =
        root.GetEnumOf("attention_backend", cost::AttentionBackend::kModel, cost::kAttentionBackendNames);
  o.kernels = root.GetEnumOf("kernels", o.kernels, model::kKernelsNames);
  o.scheduler = ReadScheduler(root.Section("scheduler"), names,
                              engine.ok() ? (*engine)->SchedulerDefaults(o.model, o.gpu.hbm_capacity.ToGiB())
                                          : serve::SchedulerOptions{});
  CheckPools(h, root.Section("scheduler"), o);
  if (o.workload.prefix_block_tokens % o.scheduler.block_size != 0)
    root.Section("workload")
        .AddError("prefix_block_tokens", "a prefix chunk of " +
                                             std::to_string(o.workload.prefix_block_tokens) +
                                             " tokens is not a multiple of scheduler.block_size (" +
                                             std::to_string(o.scheduler.block_size) + ")");
  o.engine_host_keys = internal::ReadEngineHost(root.Section("engine_host"));
  o.offload = ReadOffload(root.Section("offload"));
  o.speculative = internal::ReadSpeculative(root.Section("speculative"), models);
  ReadSlo(root.Section("slo"), o.slo);
  o.compute_model = ReadCostSection(root.Section("cost"), o.compute_model);
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  // Semantic checks (types are right by now): the model's shape (as train checks it), then tp and pp.
  CheckModelShape(root.Section("model"), o.model);
  const model::ModelSpec& m = o.model;
  // A head_dim other than hidden / heads (Mistral-Nemo, Qwen3) is priced as given: the QKV and output
  // projections, the attention and the KV cache all use model.head_dim().
  internal::CheckServeMoe(o, root, doc);
  if (o.kernels == model::Kernels::kEager && (m.moe.enabled() || m.mla.enabled()))
    root.AddError("kernels", "eager kernels price a dense decoder without MLA (model::EagerLayerOps); " +
                                 m.name + " is " + (m.moe.enabled() ? "a MoE model" : "an MLA model") +
                                 ": use kernels: fused");
  internal::CheckSpeculative(o, root);
  if (m.arch != model::Arch::kDecoder)
    doc.AddError(root.Section("model").location(), "model",
                 "model '" + m.name + "' is " +
                     (m.arch == model::Arch::kEncoder ? "an encoder" : "a diffusion transformer") +
                     " (arch " + std::string(model::ArchName(m.arch)) +
                     "); dlsim serve generates tokens autoregressively and serves decoder models only");
  DLSIM_RETURN_IF_ERROR(doc.status());
  internal::CheckServeLayout(o, h, doc);
  CheckPromptContext(root.Section("workload"), o.workload, o.model.max_seq_len);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return o;
}

Result<serve::ServeOptions> LoadServeScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                                  const model::ModelCatalog& models,
                                                  const ServeNames& names) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseServeScenario(text, path, hardware, models, names,
                            std::filesystem::path(path).parent_path().string());
}

std::string SummarizeServeOptions(const serve::ServeOptions& o) {
  std::ostringstream s;
  s << o.model.name << " on " << o.hardware.replicas << " x " << o.hardware.tp * o.hardware.pp << " "
    << o.gpu.name << " (tp " << o.hardware.tp << ", pp " << o.hardware.pp << "); " << o.scheduler.name << "; "
    << serve::NameIn(serve::kArrivalNames, o.workload.arrival);
  const serve::WorkloadOptions& w = o.workload;
  if (w.arrival == serve::ArrivalKind::kTrace && w.trace_arrivals)
    s << " (its arrival times)";
  else if (w.rate == 0)
    s << " (all ready at once)";
  else
    s << " " << w.rate << " req/s";
  if (w.concurrency > 0) s << "; closed loop, " << w.concurrency << " in flight";
  if (w.requests > 0) s << "; " << w.requests << " requests";
  return s.str();
}

}  // namespace dlsim::io
