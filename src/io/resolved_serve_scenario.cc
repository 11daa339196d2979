// The resolved serving scenario (io/resolved_scenario.h): the keys ParseServeScenario reads, each with the
// value the run used. Keys a scheduler or offload mode does not read are left out, as the reader refuses
// them.
#include <string>

#include "dlsim/io/resolved_scenario.h"
#include "dlsim/serve/engine_profile.h"

namespace dlsim::io {
namespace {

using nlohmann::ordered_json;
using serve::LengthDistribution;

ordered_json LengthsJson(const LengthDistribution& d) {
  ordered_json j = ordered_json::object();
  if (d.kind == LengthDistribution::Kind::kEmpirical)  // a file's column: summarised
    j["values_from_file"] = d.values.size();
  else
    j["distribution"] = std::string(serve::NameIn(serve::kLengthDistributionNames, d.kind));
  if (d.kind == LengthDistribution::Kind::kLognormal) j.update({{"median", d.median}, {"sigma", d.sigma}});
  if (d.kind == LengthDistribution::Kind::kFixed) j["value"] = d.value;
  if (d.kind == LengthDistribution::Kind::kUniform) j.update({{"low", d.low}, {"high", d.high}});
  j["min"] = d.min;
  if (d.max != LengthDistribution{}.max) j["max"] = d.max;  // the default is no cap (a given max is checked
  return j;                                                 // against the model's context)
}

// The prefix keys (a shared prefix, the chunk size) when the workload names prefixes.
void AddPrefixes(const serve::WorkloadOptions& w, ordered_json& j) {
  if (w.shared_prefix.tokens > 0)
    j["shared_prefix"] = {{"tokens", w.shared_prefix.tokens}, {"groups", w.shared_prefix.groups}};
  if (w.prefix_block_tokens > 0) j["prefix_block_tokens"] = w.prefix_block_tokens;
}

ordered_json WorkloadJson(const serve::WorkloadOptions& w) {
  ordered_json j = {{"arrival", std::string(serve::NameIn(serve::kArrivalNames, w.arrival))}};
  if (w.arrival == serve::ArrivalKind::kTrace) {  // a trace file: summarised
    j["requests_from_file"] = w.trace.size();
    j["trace_arrivals"] = w.trace_arrivals;
    if (!w.trace_arrivals) j["rate"] = w.rate;
    if (w.concurrency > 0) j["concurrency"] = w.concurrency;
    AddPrefixes(w, j);
    j["seed"] = w.seed;
    return j;
  }
  j["rate"] = w.rate;
  if (w.concurrency > 0) j["concurrency"] = w.concurrency;
  if (w.arrival == serve::ArrivalKind::kGamma) j["cv"] = w.cv;
  if (w.requests > 0) j["requests"] = w.requests;
  if (w.duration_s > 0) j["duration_s"] = w.duration_s;
  j["prompt_tokens"] = LengthsJson(w.prompt);
  j["output_tokens"] = LengthsJson(w.output);
  AddPrefixes(w, j);
  j["seed"] = w.seed;
  return j;
}

ordered_json SchedulerJson(const serve::SchedulerOptions& s) {
  ordered_json j = {{"name", s.name},
                    {"router", s.router},
                    {"block_size", s.block_size},
                    {"watermark", s.watermark},
                    {"max_batch_size", s.max_batch_size},
                    {"max_batched_tokens", s.max_batched_tokens},
                    {"preemption", std::string(serve::NameIn(serve::kPreemptionNames, s.preemption))},
                    {"prefix_caching", s.prefix_caching}};
  if (s.name == "sarathi") j["chunk_size"] = s.chunk_size;
  if (s.name == "orca") j["max_seq_len"] = s.max_seq_len;
  if (s.name == "distserve") {
    j["prefill_replicas"] = s.prefill_replicas;
    j["decode_replicas"] = s.decode_replicas;
    if (s.kv_transfer_gbps > 0) j["kv_transfer_gbps"] = s.kv_transfer_gbps;  // 0: the GPU's NVLink
  }
  return j;
}

ordered_json OffloadJson(const serve::OffloadOptions& f) {
  ordered_json j = {{"mode", std::string(serve::NameIn(serve::kOffloadModeNames, f.mode))}};
  if (f.mode == serve::OffloadMode::kStatic) {
    j["weight_fraction"] = f.weight_fraction;
    j["kv_fraction"] = f.kv_fraction;
  }
  if (f.mode == serve::OffloadMode::kSelectN) {
    j["state"] = std::string(serve::NameIn(serve::kOffloadStateNames, f.state));
    j["slo_admission"] = f.slo_admission;
    if (f.min_interval > 0) j["min_interval"] = f.min_interval;  // 0: derived from the TPOT SLO
  }
  if (f.pcie_gbps > 0) j["pcie_gbps"] = f.pcie_gbps;  // 0: from the GPU's PCIe generation and lanes
  j["gpus_per_pcie_bus"] = f.gpus_per_pcie_bus;
  j["host_memory_gib"] = f.host_memory_gib;
  return j;
}

ordered_json EngineHostJson(const serve::EngineHost& h) {
  return {{"step_ms", h.step.ToMillis()},        {"per_request_us", h.per_request.ToMicros()},
          {"stream_us", h.stream.ToMicros()},    {"first_token_ms", h.first_token.ToMillis()},
          {"async_output", h.async_output},      {"async_scheduling", h.async_scheduling},
          {"scheduler_steps", h.scheduler_steps}};
}

ordered_json ModelJson(const serve::ServeOptions& o) {
  ordered_json m = YamlToJson(FormatModelSectionYaml(o.model))["model"];
  if (o.weight_sparsity > 0) m["weight_sparsity"] = o.weight_sparsity;
  m["weight_dtype"] = o.weight_quant != serve::WeightQuant::kNone
                          ? std::string(serve::WeightQuantName(o.weight_quant))
                          : std::string(hw::DTypeName(o.weight_dtype));
  m["kv_cache_dtype"] = std::string(hw::DTypeName(o.kv_dtype));
  return m;
}

}  // namespace

ordered_json ResolvedServeScenario(const serve::ServeOptions& o) {
  ordered_json j;
  j["model"] = ModelJson(o);
  j["hardware"] = {{"gpu", o.gpu.name},
                   {"tp", o.hardware.tp},
                   {"pp", o.hardware.pp},
                   {"ep", o.hardware.ep},
                   {"replicas", o.hardware.replicas},
                   {"memory_margin", o.hardware.memory_margin}};
  if (o.hardware.sm_clock_mhz) j["hardware"]["sm_clock_mhz"] = *o.hardware.sm_clock_mhz;
  j["workload"] = WorkloadJson(o.workload);
  j["engine"] = o.engine;
  j["attention_backend"] = std::string(cost::AttentionBackendName(serve::AttentionBackendOf(o)));
  j["kernels"] = std::string(model::KernelsName(o.kernels));
  j["scheduler"] = SchedulerJson(o.scheduler);
  j["engine_host"] = EngineHostJson(serve::HostOf(o));
  j["offload"] = OffloadJson(o.offload);
  if (o.speculative.num_tokens > 0) {
    j["speculative"] = {{"num_tokens", o.speculative.num_tokens},
                        {"acceptance_rate", o.speculative.acceptance_rate}};
    if (o.speculative.draft) j["speculative"]["draft_model"] = o.speculative.draft->name;
  }
  j["slo"] = {{"ttft_s", o.slo.ttft_s}, {"tpot_s", o.slo.tpot_s}};
  j["cost"] = {{"model", o.compute_model}};
  return j;
}

}  // namespace dlsim::io
