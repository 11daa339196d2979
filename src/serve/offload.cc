#include "dlsim/serve/offload.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dlsim/report/format.h"

namespace dlsim::serve {
namespace {

constexpr double kWeightBytes = 2.0;  // fp16 / bf16 weights: Flash-LLM's sparse-format ratio is against them

BytesPerSecond PcieBandwidth(const ServeOptions& o) {
  if (o.offload.pcie_gbps > 0) return GBps(o.offload.pcie_gbps);
  BytesPerSecond bw = o.gpu.PcieBandwidth();
  return bw.value() > 0 ? bw : GBps(25);
}

// KV tokens the GPU holds when select-n offloads n = layers / interval layers: the room freed by n
// layers' weights, less one layer in flight, over the per-token KV left on the GPU (all layers, or
// the layers not offloaded plus the one in flight when the KV goes with them).
double SelectNTokenCapacity(const MemoryPlan& p, int interval) {
  const double room = p.NoOffloadRoom().value();
  if (interval <= 0) return std::max(0.0, room / p.token_kv.value());
  const int n = p.layers / interval;
  const double gpu_share = p.kv_offloaded ? static_cast<double>(p.layers - n + 1) / p.layers : 1.0;
  return std::max(0.0, (room + (n - 1) * p.layer_weights.value()) / (p.token_kv.value() * gpu_share));
}

// The reference decode batch of Select-N's offline stage at interval i: as many requests at the
// median context (prompt + half the output) as the KV memory freed at that interval holds, at
// most max_batch_size. (A fixed batch of max_batch_size would judge intervals at a batch the
// memory cannot hold, which overstates the compute that hides the transfers.)
BatchShape ReferenceBatch(const ServeOptions& o, const MemoryPlan& p, int interval) {
  const double ctx = o.workload.prompt.median + o.workload.output.median / 2;
  const double fit = SelectNTokenCapacity(p, interval) / ctx;
  const int64_t n = std::clamp<int64_t>(static_cast<int64_t>(fit), 1, o.scheduler.max_batch_size);
  return BatchShape::Decode(n, static_cast<int64_t>(ctx * static_cast<double>(n)));
}

// Smallest interval in [2, layers] whose iteration meets the TPOT SLO at its reference batch.
int SmallestFeasibleInterval(const ServeOptions& o, const MemoryPlan& p, const IterationCostModel& cost) {
  if (o.offload.min_interval > 0) return std::min(o.offload.min_interval, p.layers);
  const BytesPerSecond bw = p.pcie / static_cast<double>(o.offload.gpus_per_pcie_bus);
  const Duration slo = Seconds(o.slo.tpot_s);
  for (int i = 2; i <= p.layers; ++i) {
    const BatchShape b = ReferenceBatch(o, p, i);
    const IterationTime t = cost.Time(b);
    const Duration transfer = SelectNLayerTransfer(p, static_cast<double>(b.decode_context)) / bw;
    if (t.Total(p.layers) + IntervalStall(i, p.layers, t.per_layer, transfer) <= slo) return i;
  }
  return 0;
}

// Static placement: fractions f of each layer's weights and g of its KV in host memory, one layer
// double-buffered. KV tokens the GPU holds: (room + f W (layers - 2)) / (KV (1 - g) + 2 g KV/layer).
void PlanStatic(const OffloadOptions& off, MemoryPlan& p) {
  const double f = off.weight_fraction, g = off.kv_fraction;
  const double per_token = p.token_kv.value() * ((1 - g) + 2 * g / p.layers);
  const double room = p.NoOffloadRoom().value() + f * p.layer_weights.value() * (p.layers - 2);
  const double tokens = std::max(0.0, room / per_token);
  p.offloaded = p.layer_weights * (f * p.layers);
  p.offloaded_kv = p.token_kv * (g * tokens);
  p.kv_capacity = Bytes(tokens * p.token_kv.value() * (1 - g));
  p.kv_blocks = static_cast<int64_t>(tokens / (p.block_bytes / p.token_kv));
}

void PlanSelectN(const ServeOptions& o, const IterationCostModel& cost, MemoryPlan& p) {
  p.kv_offloaded = o.offload.state == OffloadState::kWeightsAndKv;
  p.min_interval = SmallestFeasibleInterval(o, p, cost);
  const int n = p.min_interval > 0 ? p.layers / p.min_interval : 0;
  const double tokens = SelectNTokenCapacity(p, p.min_interval);
  p.offloaded = p.layer_weights * static_cast<double>(n);
  p.offloaded_kv = p.kv_offloaded ? p.token_kv * (tokens * n / p.layers) : Bytes(0);
  p.kv_capacity = p.token_kv * tokens - p.offloaded_kv;
  p.kv_blocks = static_cast<int64_t>(tokens / (p.block_bytes / p.token_kv));
}

// Sizes the weights of one GPU (Flash-LLM's sparse layers included) and the KV cache with nothing
// offloaded.
MemoryPlan PlanWeights(const ServeOptions& o) {
  MemoryPlan p;
  const int gpus = o.hardware.tp * o.hardware.pp;
  p.usable = o.gpu.hbm_capacity * (1.0 - o.hardware.memory_margin);
  // Sparse linear weights (Flash-LLM's Tiled-CSL) shrink every layer to (1 - s) x 4 / 2 of its
  // dense bytes (norms and biases included: under 0.1% of a layer); embeddings stay dense.
  // Quantized weights (serve/weight_quant.h) store the layers at 4.125 or 8.125 bits a weight, the embeddings
  // at 16.
  const double wbytes = hw::DTypeBytes(o.weight_dtype);
  const double layer_scale = o.weight_sparsity > 0
                                 ? (1.0 - o.weight_sparsity) * 4.0 / kWeightBytes
                                 : LinearWeightBytes(o.weight_dtype, o.weight_quant) / wbytes;
  const double layer_params = o.model.LayerParameters() * layer_scale;
  const double params =
      o.model.ParameterCount() - o.model.layers * o.model.LayerParameters() + o.model.layers * layer_params;
  p.weights = Bytes(params * wbytes / gpus);
  // Speculative decoding's draft model lives on the same GPUs (same TP; pp is 1).
  if (o.speculative.num_tokens > 0 && o.speculative.draft)
    p.weights += Bytes(o.speculative.draft->ParameterCount() * wbytes / gpus);
  p.layer_weights = Bytes(layer_params * wbytes / o.hardware.tp);
  p.layers = std::max(1, o.model.layers / o.hardware.pp);
  p.pcie = PcieBandwidth(o);
  p.token_kv = KvBytesPerToken(o);
  p.block_bytes = p.token_kv * static_cast<double>(o.scheduler.block_size);
  p.kv_capacity = p.NoOffloadRoom();
  p.kv_blocks = p.kv_capacity.value() > 0 ? static_cast<int64_t>(p.kv_capacity / p.block_bytes) : 0;
  return p;
}

}  // namespace

Bytes KvBytesPerToken(const ServeOptions& o) {
  auto per_token = [&](const model::ModelSpec& m) {
    const int layers = std::max(1, m.layers / o.hardware.pp);
    const int kv_heads = std::max(1, m.kv_heads / o.hardware.tp);
    return 2.0 * layers * kv_heads * m.head_dim() * hw::DTypeBytes(o.kv_dtype);
  };
  // Speculative decoding's draft keeps its own KV cache of every token beside the target's.
  const bool draft = o.speculative.num_tokens > 0 && o.speculative.draft;
  return Bytes(per_token(o.model) + (draft ? per_token(*o.speculative.draft) : 0.0));
}

Duration IntervalStall(int interval, int layers, Duration per_layer, Duration layer_transfer) {
  if (interval <= 0) return Duration::Zero();
  const int offloaded = layers / interval;
  const Duration window = per_layer * static_cast<int64_t>(interval - 1);
  const Duration gap = layer_transfer > window ? layer_transfer - window : Duration::Zero();
  return gap * static_cast<int64_t>(offloaded);
}

int SelectNLayersNeeded(const MemoryPlan& p, double kv_tokens) {
  const double need = kv_tokens * p.token_kv.value() - p.NoOffloadRoom().value();
  if (need <= 0) return 0;
  const double per_layer = SelectNLayerTransfer(p, kv_tokens).value();
  return 1 + static_cast<int>(std::ceil(need / per_layer));
}

Bytes SelectNLayerTransfer(const MemoryPlan& p, double kv_tokens) {
  const Bytes kv = p.kv_offloaded ? p.token_kv * (kv_tokens / p.layers) : Bytes(0);
  return p.layer_weights + kv;
}

Result<MemoryPlan> PlanMemory(const ServeOptions& o, const IterationCostModel& cost) {
  MemoryPlan p = PlanWeights(o);
  if (o.offload.mode == OffloadMode::kStatic) PlanStatic(o.offload, p);
  if (o.offload.mode == OffloadMode::kSelectN) PlanSelectN(o, cost, p);
  if (p.HostBytes().ToGiB() > o.offload.host_memory_gib) {
    return Error{ErrorCode::kInfeasible, "offloaded state needs " + report::FormatBytes(p.HostBytes()) +
                                             " of host memory per GPU; offload.host_memory_gib allows " +
                                             report::FormatBytes(GiB(o.offload.host_memory_gib))};
  }
  if (p.kv_blocks <= 0) {
    return Error{ErrorCode::kInfeasible,
                 "weights need " + report::FormatBytes(p.weights - p.offloaded) +
                     " per GPU (less what is offloaded)" + " but only " + report::FormatBytes(p.usable) +
                     " is usable (" + o.gpu.name +
                     ", memory_margin); no KV block fits: add tp/pp or offload weights"};
  }
  return p;
}

Duration Offloader::Stall(Duration per_layer, int sharers, Bytes kv_used, int* interval) const {
  *interval = 0;
  if (!active()) return Duration::Zero();
  const BytesPerSecond bw = plan_.pcie / static_cast<double>(std::max(1, sharers));
  const double tokens = kv_used / plan_.token_kv;
  if (o_.mode == OffloadMode::kStatic) {
    const Bytes bytes =
        plan_.layer_weights * o_.weight_fraction + plan_.token_kv * (o_.kv_fraction * tokens / plan_.layers);
    const Duration transfer = bytes / bw;
    *interval = 1;
    return transfer > per_layer ? (transfer - per_layer) * static_cast<int64_t>(plan_.layers)
                                : Duration::Zero();
  }
  // Select-N: offload only the layers the current KV cache needs the memory of.
  const int needed = SelectNLayersNeeded(plan_, tokens);
  if (needed <= 0) return Duration::Zero();
  const int i = std::max(plan_.min_interval, plan_.layers / std::min(needed, plan_.layers));
  *interval = i;
  return IntervalStall(i, plan_.layers, per_layer, SelectNLayerTransfer(plan_, tokens) / bw);
}

}  // namespace dlsim::serve
