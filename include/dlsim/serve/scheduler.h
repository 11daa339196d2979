// Replica schedulers: which requests run in the next iteration of one model replica.
//
// A ReplicaScheduler looks at the replica's queues and KV cache and forms a Batch: it admits
// waiting requests (allocating their KV blocks), grows running ones, and preempts when blocks
// run out. The simulator runs the batch and applies its progress. Policies (registry names):
//   vllm      continuous batching, prefill-prioritised, paged KV, preemption by recompute or swap
//   orca      iteration-level batching; prefills join decodes; KV reserved for max_seq_len
//   sarathi   chunked prefill under a token budget, decodes first (stall-free batching)
//   distserve disaggregated prefill and decode pools (vllm batching in each), KV transferred
//
//   serve::SchedulerRegistry reg("serving-scheduler");
//   serve::RegisterSchedulers(reg);
//   auto s = reg.Create("sarathi", options.scheduler);   // Result<unique_ptr<ReplicaScheduler>>
//
// Policies keep no per-request state; not thread-safe (one per replica).
#ifndef DLSIM_SERVE_SCHEDULER_H_
#define DLSIM_SERVE_SCHEDULER_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/kv_cache.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/prefix_cache.h"
#include "dlsim/serve/request.h"

namespace dlsim::serve {

struct BatchEntry {
  int32_t request = 0;
  int32_t tokens = 0;  // prefill chunk length, or 1 for a decode
  bool prefill = false;
};

struct Batch {
  std::vector<BatchEntry> entries;
  BatchShape shape;
  Bytes swap_bytes;  // KV moved between GPU and host memory before this iteration
  void Clear() {
    entries.clear();
    shape = {};
    swap_bytes = Bytes(0);
  }
  bool empty() const { return entries.empty(); }
};

// A replica's queues of request indices (into the simulation's request vector).
struct ReplicaQueues {
  std::deque<int32_t> waiting;   // not admitted (no KV), FCFS
  std::vector<int32_t> running;  // admitted, in admission order (the last is preempted first)
  std::deque<int32_t> swapped;   // preempted by swap, KV in host memory
};

struct SchedulerContext {
  std::vector<Request>& requests;
  KvCache& kv;
  Bytes block_bytes;        // KV bytes of one block on one GPU (swap traffic)
  int64_t preemptions = 0;  // incremented by the policy
  // Running requests the policy may admit up to this iteration (an SLO controller's cap, e.g.
  // Select-N's performance record), besides max_batch_size; never preempts to meet it.
  int64_t max_running = INT64_MAX;
  // Speculative decoding: draft tokens each decode verifies (ServeOptions::speculative); its KV reserves
  // them.
  int lookahead = 0;
  // Prefix caching (null: off): admissions pin the cached chunks of a prompt before its first prefill chunk,
  // and every release of a request's KV goes through it.
  PrefixCache* prefix = nullptr;
  // Sliding-window models: the window the engine computes windowed layers through (0: none).
  int64_t window = 0;
};

class ReplicaScheduler {
 public:
  virtual ~ReplicaScheduler() = default;
  // Fills `batch` (cleared by the caller) for the next iteration; leaves it empty when nothing
  // can run. Postcondition: every request in the batch holds KV blocks for its tokens after the
  // iteration, and the cache is never over-committed.
  virtual void FormBatch(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) = 0;
  // True for policies with separate prefill and decode pools (distserve).
  virtual bool disaggregated() const { return false; }
};

using SchedulerRegistry = Registry<ReplicaScheduler, const SchedulerOptions&>;
void RegisterSchedulers(SchedulerRegistry& reg);

// Adds a prefill chunk / a decode of request `r` to the batch and its shape; a decode verifying `lookahead`
// draft tokens (speculative decoding) has 1 + lookahead queries.
// `window` > 0: the model's sliding window as the engine computes it (BatchShape's window fields).
void AddPrefillChunk(const Request& r, int32_t index, int32_t chunk, Batch& batch, int64_t window = 0);
void AddDecode(const Request& r, int32_t index, Batch& batch, int lookahead = 0, int64_t window = 0);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_SCHEDULER_H_
