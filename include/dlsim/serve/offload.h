// Host-memory offloading of weights and KV cache over PCIe, and the GPU memory plan it changes.
//
// Static (FlexGen / DeepSpeed ZeRO-Inference style): fixed fractions of every layer's weights and
// of its KV cache live in host memory and are streamed in each iteration, prefetched one layer ahead
// (double-buffered), so each layer takes max(t_compute, t_transfer).
// Select-N: every i-th layer's state (weights, or weights and KV cache: options.state) lives in host
// memory; its transfer overlaps the compute of the i-1 GPU-resident layers before it, stalling
// max(0, t_transfer - (i-1) t_compute) per offloaded layer; one layer's state is in flight at a time.
// Offline, the smallest interval i_min whose iteration still meets the TPOT SLO at the reference
// batch fixes how much memory is freed for the KV cache, and a performance record over a (batch,
// context) grid (performance_record.h) caps admission by the SLO. Online, each iteration uses the
// largest interval whose offloaded layers still cover the memory the current KV cache needs, with the
// PCIe bandwidth divided among the replicas transferring on the same bus.
//
//   auto plan = serve::PlanMemory(options, cost);   // Result<MemoryPlan>
//   serve::Offloader off(plan, options.offload);
//   Duration stall = off.Stall(per_layer, /*sharers=*/1, kv_used_bytes, &interval);
//
// Values; thread-safe for concurrent const use.
#ifndef DLSIM_SERVE_OFFLOAD_H_
#define DLSIM_SERVE_OFFLOAD_H_

#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/options.h"

namespace dlsim::serve {

// Per GPU of one replica.
struct MemoryPlan {
  Bytes usable;         // HBM * (1 - memory_margin)
  Bytes weights;        // all weights of this GPU's share of the model
  Bytes layer_weights;  // one transformer layer's share
  int layers = 0;       // layers on this GPU (model layers / pp)
  Bytes offloaded;      // weights kept in host memory (at the smallest interval for select-n)
  Bytes offloaded_kv;   // KV cache kept in host memory when the cache is full
  Bytes kv_capacity;    // HBM left for the KV cache
  Bytes block_bytes;    // one KV block (block_size tokens, all of this GPU's layers)
  Bytes token_kv;       // one token's KV, all of this GPU's layers
  int64_t kv_blocks = 0;
  int min_interval = 0;       // select-n: i_min (0 when no layer is offloaded)
  bool kv_offloaded = false;  // select-n offloads layers' KV cache with their weights
  BytesPerSecond pcie;        // host-to-device bandwidth per direction
  // The KV room with nothing offloaded (usable - weights; may be negative).
  Bytes NoOffloadRoom() const { return usable - weights; }
  Bytes HostBytes() const { return offloaded + offloaded_kv; }
};

// KV bytes of one token on one GPU (K and V of every local layer and KV head).
Bytes KvBytesPerToken(const ServeOptions& o);

// Sizes weights, offloading and the KV cache. Error (kInfeasible) with the shortfall when the
// weights do not fit, or no KV block fits, even with the configured offloading.
Result<MemoryPlan> PlanMemory(const ServeOptions& o, const IterationCostModel& cost);

class Offloader {
 public:
  Offloader(const MemoryPlan& plan, const OffloadOptions& o) : plan_(plan), o_(o) {}
  // Extra time of one iteration whose layers each compute for `per_layer`, with `sharers`
  // replicas (this one included) transferring on the same PCIe bus and `kv_used` bytes of KV
  // cache in use on this GPU. Writes the interval used (0: nothing offloaded) to `interval`.
  Duration Stall(Duration per_layer, int sharers, Bytes kv_used, int* interval) const;
  bool active() const { return o_.mode != OffloadMode::kNone && plan_.HostBytes().value() > 0; }

 private:
  MemoryPlan plan_;
  OffloadOptions o_;
};

// Select-N's per-iteration stall for interval i (every i-th of `layers` layers offloaded).
Duration IntervalStall(int interval, int layers, Duration per_layer, Duration layer_transfer);

// Select-N's memory arithmetic for `plan` (select-n mode; the state its options offload).
// Layers whose state must be in host memory for `kv_tokens` tokens of KV cache: 0 when they fit with
// nothing offloaded, else 1 + ceil((tokens x KV/token - room) / (W + tokens x KV/token/layer)) (one
// offloaded layer's state is the buffer in flight; the KV term only when KV is offloaded). May exceed
// plan.layers when nothing fits.
int SelectNLayersNeeded(const MemoryPlan& plan, double kv_tokens);
// Bytes one offloaded layer moves over PCIe per iteration with `kv_tokens` tokens in the cache.
Bytes SelectNLayerTransfer(const MemoryPlan& plan, double kv_tokens);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_OFFLOAD_H_
