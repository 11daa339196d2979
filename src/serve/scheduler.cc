#include "dlsim/serve/scheduler.h"

#include <algorithm>
#include <memory>

namespace dlsim::serve {

void AddPrefillChunk(const Request& r, int32_t index, int32_t chunk, Batch& batch, int64_t window) {
  batch.entries.push_back({index, chunk, true});
  BatchShape& s = batch.shape;
  const double c = chunk;
  s.prefill_tokens += chunk;
  s.prefill_pairs += c * r.kv_tokens + c * (c + 1) / 2;
  // Query j of the chunk sees kv_tokens + j keys (j = 1..c), at most `window` of them.
  if (window > 0)
    s.prefill_window_pairs +=
        cost::CappedSum(static_cast<double>(r.kv_tokens) + 1, static_cast<double>(r.kv_tokens) + c,
                        static_cast<double>(window));
  s.prefill_requests += 1;
  if (r.prefilled + chunk >= r.prefill_target) s.logits += 1;
}

namespace {

// AddDecode's body, inlined into the schedulers' per-request loops (a call per running request per step
// was a tenth of bench_serve's time).
[[gnu::always_inline]] inline void AppendDecode(const Request& r, int32_t index, Batch& batch, int lookahead,
                                                int64_t window) {
  batch.entries.push_back({index, 1, false});
  batch.shape.decode_requests += 1;
  const int64_t context = r.kv_tokens + 1 + lookahead;
  batch.shape.decode_context += context;
  if (window > 0) batch.shape.decode_window_context += std::min(context, window);
  batch.shape.logits += 1 + lookahead;
  batch.shape.spec_tokens = lookahead;
}

}  // namespace

void AddDecode(const Request& r, int32_t index, Batch& batch, int lookahead, int64_t window) {
  AppendDecode(r, index, batch, lookahead, window);
}

namespace {

// Blocks `r` needs in addition to what it holds to store `tokens` more tokens.
int64_t ExtraBlocks(const KvCache& kv, const Request& r, int64_t tokens) {
  return std::max<int64_t>(0, kv.BlocksFor(r.kv_tokens + tokens) - r.blocks);
}

void Grow(KvCache& kv, Request& r, int64_t extra) {
  kv.Allocate(extra);
  r.blocks += static_cast<int32_t>(extra);
}

// Shared machinery of the policies: admission, growth with preemption, swap-in.
class PolicyBase : public ReplicaScheduler {
 public:
  explicit PolicyBase(const SchedulerOptions& o) : o_(o) {}

 protected:
  // True when one more request may join the running ones (max_batch_size and the context's cap).
  bool Room(const ReplicaQueues& q, const SchedulerContext& ctx) const {
    const auto running = static_cast<int64_t>(q.running.size());
    return running < o_.max_batch_size && running < ctx.max_running;
  }

  // Preempts the last running request (vLLM's lowest priority). Recompute: its KV is dropped
  // and it re-enters the waiting queue first, to re-prefill prompt + generated tokens. Swap:
  // its KV goes to host memory (counted in batch.swap_bytes).
  void PreemptLast(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) {
    const int32_t victim = q.running.back();
    q.running.pop_back();
    Request& r = ctx.requests[victim];
    const int32_t blocks = r.blocks;
    ReleaseKv(ctx.kv, ctx.prefix, r);
    ++r.preemptions;
    ++ctx.preemptions;
    if (o_.preemption == Preemption::kSwap) {
      batch.swap_bytes += ctx.block_bytes * static_cast<double>(blocks);
      r.swapped = true;
      q.swapped.push_front(victim);
    } else {
      r.prefill_target = r.prompt + r.generated;
      r.prefilled = 0;
      r.kv_tokens = 0;
      q.waiting.push_front(victim);
    }
  }

  // Swaps requests back in, oldest first, while their blocks fit above the watermark.
  void SwapIn(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) {
    while (!q.swapped.empty() && Room(q, ctx)) {
      Request& r = ctx.requests[q.swapped.front()];
      const int64_t need = ctx.kv.BlocksFor(r.kv_tokens + 1);
      if (!ctx.kv.CanAllocate(need, true)) break;
      Grow(ctx.kv, r, need);
      r.swapped = false;
      batch.swap_bytes += ctx.block_bytes * static_cast<double>(need);
      q.running.push_back(q.swapped.front());
      q.swapped.pop_front();
    }
  }

  // Gives every running request with a finished prefill the block its next token needs, preempting from
  // the back when the cache is full, and adds its decode to the batch. One pass: a preemption takes the
  // last running request, never one before the current, so the decodes already added stay.
  void GrowAndDecode(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) {
    for (size_t i = 0; i < q.running.size(); ++i) {
      const int32_t idx = q.running[i];
      Request& r = ctx.requests[idx];
      if (!r.prefill_done()) continue;
      const int64_t extra = ExtraBlocks(ctx.kv, r, 1 + ctx.lookahead);
      while (!ctx.kv.CanAllocate(extra, false) && i < q.running.size()) PreemptLast(q, ctx, batch);
      if (i >= q.running.size()) break;  // r itself was preempted
      Grow(ctx.kv, r, extra);
      AppendDecode(r, idx, batch, ctx.lookahead, ctx.window);
    }
  }

  // Admits waiting requests FCFS while their whole prefill fits the token budget, the batch
  // size and the cache (above the watermark). Requests whose KV is already complete (a
  // distserve decode pool) are admitted without a prefill. Returns the tokens scheduled.
  // With `reserve_max`, blocks for max(max_seq_len, prompt + output) tokens are taken at once (Orca).
  int64_t AdmitWholePrefills(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch, int64_t budget,
                             bool reserve_max) {
    int64_t tokens = 0;
    while (!q.waiting.empty() && Room(q, ctx)) {
      const int32_t idx = q.waiting.front();
      Request& r = ctx.requests[idx];
      const bool pinned = PinPrefix(ctx, r);
      const int64_t need = r.prefill_target - r.prefilled;
      const int64_t reserve =
          reserve_max ? std::max<int64_t>(o_.max_seq_len, r.prompt + r.output) - r.kv_tokens : need;
      const int64_t extra = ExtraBlocks(ctx.kv, r, need == 0 ? 1 : reserve);
      if ((need > 0 && tokens > 0 && tokens + need > budget) || !ctx.kv.CanAllocate(extra, true)) {
        if (pinned) ctx.prefix->Unpin(ctx.kv, r);
        break;
      }
      Grow(ctx.kv, r, extra);
      q.waiting.pop_front();
      q.running.push_back(idx);
      if (need > 0) {
        AddPrefillChunk(r, idx, static_cast<int32_t>(need), batch, ctx.window);
        tokens += need;
      }
    }
    return tokens;
  }

  // With prefix caching, pins the cached chunks of a waiting request nothing of whose prefill is computed
  // (PrefixCache::Pin); true when it did (the caller unpins when the request is not admitted after all).
  static bool PinPrefix(SchedulerContext& ctx, Request& r) {
    if (ctx.prefix == nullptr || r.blocks != 0 || r.prefilled != 0 || r.kv_tokens != 0) return false;
    ctx.prefix->Pin(ctx.kv, r);
    return true;
  }

  SchedulerOptions o_;
};

class VllmScheduler : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  void FormBatch(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) override {
    if (q.swapped.empty() && AdmitWholePrefills(q, ctx, batch, o_.max_batched_tokens, false) > 0) return;
    SwapIn(q, ctx, batch);
    GrowAndDecode(q, ctx, batch);
  }
};

class DistServeScheduler final : public VllmScheduler {
 public:
  using VllmScheduler::VllmScheduler;
  bool disaggregated() const override { return true; }
};

class OrcaScheduler final : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  void FormBatch(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) override {
    // Running requests hold blocks for max_seq_len tokens, so they never need more.
    for (int32_t idx : q.running) AppendDecode(ctx.requests[idx], idx, batch, ctx.lookahead, ctx.window);
    AdmitWholePrefills(q, ctx, batch, o_.max_batched_tokens, true);
  }
};

class SarathiScheduler final : public PolicyBase {
 public:
  using PolicyBase::PolicyBase;
  void FormBatch(ReplicaQueues& q, SchedulerContext& ctx, Batch& batch) override {
    SwapIn(q, ctx, batch);
    GrowAndDecode(q, ctx, batch);
    int64_t budget = o_.chunk_size - batch.shape.tokens();
    // Continue partial prefills, oldest first.
    for (int32_t idx : q.running) {
      if (budget <= 0) break;
      Request& r = ctx.requests[idx];
      if (r.prefill_done()) continue;
      budget -= Chunk(ctx, r, idx, budget, batch, false);
    }
    // Admit new requests with the rest of the budget.
    while (budget > 0 && q.swapped.empty() && !q.waiting.empty() && Room(q, ctx)) {
      const int32_t idx = q.waiting.front();
      Request& r = ctx.requests[idx];
      const bool pinned = PinPrefix(ctx, r);
      const int64_t used = Chunk(ctx, r, idx, budget, batch, true);
      if (used == 0 && r.prefill_target > r.prefilled) {
        if (pinned) ctx.prefix->Unpin(ctx.kv, r);
        break;
      }
      q.waiting.pop_front();
      q.running.push_back(idx);
      budget -= used;
    }
  }

 private:
  // Schedules min(remaining prefill, budget) tokens of `r` if their blocks fit; returns them.
  int64_t Chunk(SchedulerContext& ctx, Request& r, int32_t idx, int64_t budget, Batch& batch, bool admit) {
    const int64_t chunk = std::min<int64_t>(r.prefill_target - r.prefilled, budget);
    const int64_t extra = ExtraBlocks(ctx.kv, r, std::max<int64_t>(chunk, 1));
    if (!ctx.kv.CanAllocate(extra, admit)) return 0;
    Grow(ctx.kv, r, extra);
    if (chunk > 0) AddPrefillChunk(r, idx, static_cast<int32_t>(chunk), batch, ctx.window);
    return chunk;
  }
};

}  // namespace

void RegisterSchedulers(SchedulerRegistry& reg) {
  reg.RegisterBuiltin("vllm",
                      "vLLM: continuous batching, prefill first, paged KV, preemption by recompute or swap",
                      [](const SchedulerOptions& o) { return std::make_unique<VllmScheduler>(o); });
  reg.RegisterBuiltin("orca",
                      "Orca: iteration-level batching, prefills join decodes, KV reserved for max_seq_len",
                      [](const SchedulerOptions& o) { return std::make_unique<OrcaScheduler>(o); });
  reg.RegisterBuiltin("sarathi",
                      "Sarathi-Serve: chunked prefills under a token budget (chunk_size), decodes first",
                      [](const SchedulerOptions& o) { return std::make_unique<SarathiScheduler>(o); });
  reg.RegisterBuiltin(
      "distserve",
      "DistServe: disaggregated prefill and decode pools (vllm batching), KV transferred between them",
      [](const SchedulerOptions& o) { return std::make_unique<DistServeScheduler>(o); });
}

}  // namespace dlsim::serve
