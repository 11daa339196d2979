#include "dlsim/serve/offload.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "dlsim/report/format.h"

namespace dlsim::serve {
namespace {

constexpr double kWeightBytes = 2.0;  // fp16 / bf16 serving

BytesPerSecond PcieBandwidth(const ServeOptions& o) {
  if (o.offload.pcie_gbps > 0) return GBps(o.offload.pcie_gbps);
  BytesPerSecond bw = o.gpu.PcieBandwidth();
  return bw.value() > 0 ? bw : GBps(25);
}

// The reference decode batch of Select-N's offline stage at interval i: as many requests at the
// median context (prompt + half the output) as the KV memory freed at that interval holds, at
// most max_batch_size. (A fixed batch of max_batch_size would judge intervals at a batch the
// memory cannot hold, which overstates the compute that hides the transfers.)
BatchShape ReferenceBatch(const ServeOptions& o, const MemoryPlan& p, int interval) {
  const double ctx = o.workload.prompt.median + o.workload.output.median / 2;
  const Bytes offloaded = p.layer_weights * static_cast<double>(p.layers / interval);
  const Bytes kv = p.usable - p.weights + offloaded - p.layer_weights;
  const double fit = kv.value() / (KvBytesPerToken(o).value() * ctx);
  BatchShape b;
  b.decode_requests = std::clamp<int64_t>(static_cast<int64_t>(fit), 1, o.scheduler.max_batch_size);
  b.decode_context = static_cast<int64_t>(ctx * static_cast<double>(b.decode_requests));
  b.logits = b.decode_requests;
  return b;
}

// Smallest interval in [2, layers] whose iteration meets the TPOT SLO at its reference batch.
int SmallestFeasibleInterval(const ServeOptions& o, const MemoryPlan& p, const IterationCostModel& cost) {
  if (o.offload.min_interval > 0) return std::min(o.offload.min_interval, p.layers);
  const Duration transfer = p.layer_weights / (p.pcie / static_cast<double>(o.offload.gpus_per_pcie_bus));
  const Duration slo = Seconds(o.slo.tpot_s);
  for (int i = 2; i <= p.layers; ++i) {
    const IterationTime t = cost.Time(ReferenceBatch(o, p, i));
    if (t.Total(p.layers) + IntervalStall(i, p.layers, t.per_layer, transfer) <= slo) return i;
  }
  return 0;
}

}  // namespace

Bytes KvBytesPerToken(const ServeOptions& o) {
  const auto& m = o.model;
  const int layers = std::max(1, m.layers / o.hardware.pp);
  const int kv_heads = std::max(1, m.kv_heads / o.hardware.tp);
  return Bytes(2.0 * layers * kv_heads * m.head_dim() * kWeightBytes);
}

Duration IntervalStall(int interval, int layers, Duration per_layer, Duration layer_transfer) {
  if (interval <= 0) return Duration::Zero();
  const int offloaded = layers / interval;
  const Duration window = per_layer * static_cast<int64_t>(interval - 1);
  const Duration gap = layer_transfer > window ? layer_transfer - window : Duration::Zero();
  return gap * static_cast<int64_t>(offloaded);
}

Result<MemoryPlan> PlanMemory(const ServeOptions& o, const IterationCostModel& cost) {
  MemoryPlan p;
  const int gpus = o.hardware.tp * o.hardware.pp;
  p.usable = o.gpu.hbm_capacity * (1.0 - o.hardware.memory_margin);
  // Sparse linear weights (Flash-LLM's Tiled-CSL) shrink every layer to (1 - s) x 4 / 2 of its
  // dense bytes (norms and biases included: under 0.1% of a layer); embeddings stay dense.
  const double layer_scale = o.weight_sparsity > 0 ? (1.0 - o.weight_sparsity) * 4.0 / kWeightBytes : 1.0;
  const double layer_params = o.model.LayerParameters() * layer_scale;
  const double params =
      o.model.ParameterCount() - o.model.layers * o.model.LayerParameters() + o.model.layers * layer_params;
  p.weights = Bytes(params * kWeightBytes / gpus);
  p.layer_weights = Bytes(layer_params * kWeightBytes / o.hardware.tp);
  p.layers = std::max(1, o.model.layers / o.hardware.pp);
  p.pcie = PcieBandwidth(o);
  p.block_bytes = KvBytesPerToken(o) * static_cast<double>(o.scheduler.block_size);
  Bytes buffers(0);
  switch (o.offload.mode) {
    case OffloadMode::kNone:
      break;
    case OffloadMode::kStatic:
      p.offloaded = p.layer_weights * (o.offload.weight_fraction * p.layers);
      buffers = p.layer_weights * (2.0 * o.offload.weight_fraction);  // double-buffered prefetch
      break;
    case OffloadMode::kSelectN:
      p.min_interval = SmallestFeasibleInterval(o, p, cost);
      if (p.min_interval > 0) {
        p.offloaded = p.layer_weights * static_cast<double>(p.layers / p.min_interval);
        buffers = p.layer_weights;  // one layer in flight
      }
      break;
  }
  if (p.offloaded.ToGiB() > o.offload.host_memory_gib) {
    return Error{ErrorCode::kInfeasible, "offloaded weights need " + report::FormatBytes(p.offloaded) +
                                             " of host memory per GPU; offload.host_memory_gib allows " +
                                             report::FormatBytes(GiB(o.offload.host_memory_gib))};
  }
  p.kv_capacity = p.usable - p.weights + p.offloaded - buffers;
  p.kv_blocks = p.kv_capacity.value() > 0 ? static_cast<int64_t>(p.kv_capacity / p.block_bytes) : 0;
  if (p.kv_blocks <= 0) {
    return Error{ErrorCode::kInfeasible,
                 "weights need " + report::FormatBytes(p.weights - p.offloaded + buffers) +
                     " per GPU but only " + report::FormatBytes(p.usable) + " is usable (" + o.gpu.name +
                     ", memory_margin); no KV block fits: add tp/pp or offload weights"};
  }
  return p;
}

Duration Offloader::Stall(Duration per_layer, int sharers, Bytes kv_used, int* interval) const {
  *interval = 0;
  if (!active()) return Duration::Zero();
  const BytesPerSecond bw = plan_.pcie / static_cast<double>(std::max(1, sharers));
  if (o_.mode == OffloadMode::kStatic) {
    const Duration transfer = (plan_.layer_weights * o_.weight_fraction) / bw;
    *interval = 1;
    return transfer > per_layer ? (transfer - per_layer) * static_cast<int64_t>(plan_.layers)
                                : Duration::Zero();
  }
  // Select-N: offload only the layers the current KV cache needs the memory of.
  const double no_offload_kv = (plan_.kv_capacity - plan_.offloaded + plan_.layer_weights).value();
  const double need = kv_used.value() - no_offload_kv;
  if (need <= 0) return Duration::Zero();
  const int layers_needed = std::max(1, static_cast<int>(std::ceil(need / plan_.layer_weights.value())));
  const int i = std::max(plan_.min_interval, plan_.layers / layers_needed);
  *interval = i;
  return IntervalStall(i, plan_.layers, per_layer, plan_.layer_weights / bw);
}

}  // namespace dlsim::serve
