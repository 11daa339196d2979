// Prefix caching (serve/prefix_cache.h): the cache's block accounting against a brute-force reference, its
// eviction order, and the simulator's closed-form cases (a shared prefix computed once; a trace's chunk ids).
#include "dlsim/serve/prefix_cache.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "dlsim/core/rng.h"
#include "dlsim/serve/simulate.h"
#include "test_env.h"

namespace dlsim::serve {
namespace {

using testing::Env;

// A request of `prompt` tokens whose first chunks are trace ids [first, first + chunks).
Request TraceRequest(int32_t prompt, int32_t first, int32_t chunks) {
  Request r;
  r.prompt = r.prefill_target = prompt;
  r.output = 8;
  r.prefix_first = first;
  r.prefix_chunks = chunks;
  return r;
}

// Admits r as a scheduler does: pins its cached chunks, allocates the rest of its prompt, prefills it.
void AdmitAndPrefill(PrefixCache& cache, KvCache& kv, Request& r) {
  cache.Pin(kv, r);
  const int64_t extra = kv.BlocksFor(r.prompt) - r.blocks;
  ASSERT_TRUE(kv.CanAllocate(extra, false));
  kv.Allocate(extra);
  r.blocks += static_cast<int32_t>(extra);
  r.prefilled = r.kv_tokens = r.prompt;
  cache.Insert(kv, r);
}

// A cache over trace chunk ids `hashes` of `chunk` tokens, on a KV cache of `blocks` blocks of 16 tokens.
struct CacheOnKv {
  CacheOnKv(std::vector<uint64_t> hashes, int64_t chunk, int64_t blocks, double watermark = 0)
      : w{.prefix_hashes = std::move(hashes), .prefix_block_tokens = chunk},
        cache(w, 16),
        kv(blocks, 16, watermark) {}
  WorkloadOptions w;
  PrefixCache cache;
  KvCache kv;
};

// Chunks of 32 tokens (2 blocks of 16); the last prompt token is never cached.
TEST(PrefixCache, ASecondRequestFindsTheChunksTheFirstComputed) {
  CacheOnKv t({7, 8, 9, 7, 8, 5}, 32, 100);
  PrefixCache& cache = t.cache;
  KvCache& kv = t.kv;
  Request a = TraceRequest(100, 0, 3), b = TraceRequest(100, 3, 3);
  EXPECT_EQ(cache.CacheableChunks(a), 3);  // 99 tokens before the last hold 3 full chunks
  EXPECT_EQ(cache.CacheableChunks(TraceRequest(96, 0, 3)), 2);  // 95 tokens: 2 (the third ends on the last)
  AdmitAndPrefill(cache, kv, a);
  EXPECT_EQ(a.cached_tokens, 0);
  EXPECT_EQ(a.shared_blocks, 6);  // its 3 chunks now belong to the cache
  EXPECT_EQ(kv.used(), 7);        // 100 tokens: 7 blocks, 6 of them in chunks
  AdmitAndPrefill(cache, kv, b);  // ids 7, 8 agree, 5 differs
  EXPECT_EQ(b.cached_tokens, 64);
  EXPECT_EQ(kv.used(), 7 + 7 - 4);  // the two shared chunks are held once
  cache.Release(kv, a);
  EXPECT_EQ(kv.used(), 7);              // b's blocks: its own 1, its chunk 5 and the two it shares
  EXPECT_EQ(cache.cached_blocks(), 2);  // a's chunk 9 is cached in free blocks
  cache.Release(kv, b);
  EXPECT_EQ(kv.used(), 0);
  EXPECT_EQ(cache.cached_blocks(), 8);
  EXPECT_EQ(cache.hit_tokens(), 64);
  EXPECT_EQ(cache.looked_up_tokens(), 200);
}

// Unpinned chunks give way to allocations, a prefix's last chunk first; a later request then finds the
// leading chunks only.
TEST(PrefixCache, EvictionTakesALastChunkBeforeTheChunksItFollows) {
  CacheOnKv t({1, 2, 3, 1, 2, 3}, 16, 10);
  PrefixCache& cache = t.cache;
  KvCache& kv = t.kv;
  Request a = TraceRequest(64, 0, 3);  // 4 blocks, 3 chunks
  AdmitAndPrefill(cache, kv, a);
  cache.Release(kv, a);
  EXPECT_EQ(cache.cached_blocks(), 3);
  kv.Allocate(8);  // another request's blocks: 2 free, so one chunk must go
  cache.Trim(kv);
  EXPECT_EQ(cache.cached_blocks(), 2);
  kv.Release(8);
  Request b = TraceRequest(64, 3, 3);
  cache.Pin(kv, b);
  EXPECT_EQ(b.cached_tokens, 32);  // chunks 1 and 2 kept, 3 evicted
  EXPECT_EQ(b.pinned_chunks, 2);
  cache.Unpin(kv, b);  // not admitted after all: as before
  EXPECT_EQ(b.cached_tokens, 0);
  EXPECT_EQ(kv.used(), 0);
  EXPECT_EQ(cache.hit_tokens(), 0);
}

// A pinned chunk needs its blocks back from the free pool: past the watermark, fewer chunks are pinned.
TEST(PrefixCache, PinningAnUnpinnedChunkNeedsFreeBlocksAboveTheWatermark) {
  CacheOnKv t({1, 2, 1, 2}, 16, 10, 0.5);  // 5 blocks kept back
  PrefixCache& cache = t.cache;
  KvCache& kv = t.kv;
  Request a = TraceRequest(48, 0, 2);
  AdmitAndPrefill(cache, kv, a);
  cache.Release(kv, a);
  kv.Allocate(4);  // 6 free: one chunk can be taken above the 5 kept back
  Request b = TraceRequest(48, 2, 2);
  cache.Pin(kv, b);
  EXPECT_EQ(b.pinned_chunks, 1);
  EXPECT_EQ(kv.used(), 5);
}

// Random admissions, prefills and releases of requests over a few prefixes, checked after every step against
// a reference that recounts from scratch: used blocks = the requests' own blocks + each pinned chunk once;
// cached chunks never exceed the free blocks after a trim; a pin finds exactly the leading chunks cached.
TEST(PrefixCache, BlockAccountingMatchesABruteForceRecount) {
  WorkloadOptions w;
  w.prefix_block_tokens = 16;
  Rng rng(42);
  std::vector<Request> reqs;
  for (int i = 0; i < 60; ++i) {  // 4 prefixes of 6 chunks; requests take 0-6 of their prefix's chunks
    const int32_t first = static_cast<int32_t>(w.prefix_hashes.size());
    const int prefix = static_cast<int>(rng.NextBelow(4)), chunks = static_cast<int>(rng.NextBelow(7));
    for (int k = 0; k < chunks; ++k) w.prefix_hashes.push_back(static_cast<uint64_t>(prefix * 100 + k));
    reqs.push_back(TraceRequest(16 * chunks + 1 + static_cast<int32_t>(rng.NextBelow(40)), first, chunks));
  }
  PrefixCache cache(w, 16);
  KvCache kv(60, 16, 0);
  std::set<size_t> active;
  for (int step = 0; step < 3000; ++step) {
    const size_t i = rng.NextBelow(reqs.size());
    Request& r = reqs[i];
    if (active.count(i) != 0) {
      cache.Release(kv, r);
      active.erase(i);
    } else {
      cache.Trim(kv);
      if (!kv.CanAllocate(kv.BlocksFor(r.prompt), false)) continue;  // room even with no hit
      r.prefilled = r.kv_tokens = 0;
      AdmitAndPrefill(cache, kv, r);
      active.insert(i);
    }
    int64_t own = 0;
    std::set<uint64_t> pinned;
    for (size_t a : active) {
      own += reqs[a].blocks - reqs[a].shared_blocks;
      for (int k = 0; k < reqs[a].pinned_chunks; ++k)
        pinned.insert(w.prefix_hashes[reqs[a].prefix_first + k]);
      ASSERT_EQ(reqs[a].pinned_chunks, cache.CacheableChunks(reqs[a]));
    }
    ASSERT_EQ(kv.used(), own + static_cast<int64_t>(pinned.size())) << "step " << step;
    cache.Trim(kv);
    ASSERT_LE(cache.cached_blocks(), kv.free());
  }
  EXPECT_GT(cache.hit_tokens(), 0);
}

// Requests far apart with one 512-token shared prefix: the first computes its 1,000-token prompt, every
// later one 488 tokens (prefill 1 ms a token); the hit rate is (n - 1) 512 / (n 1000). Off, every prefill is
// whole.
TEST(PrefixCache, ASharedPrefixIsComputedOnce) {
  ServeOptions o = testing::BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  for (int i = 0; i < 10; ++i) o.workload.trace.push_back({10.0 * i, 1000, 2});
  o.workload.shared_prefix = {.tokens = 512, .groups = 1};
  o.scheduler.prefix_caching = true;
  o.keep_records = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto on = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(on.ok()) << on.error().message;
  EXPECT_TRUE(on->metrics.prefix_caching);
  EXPECT_NEAR(on->records[0].ttft_s, 1.000, 1e-9);
  for (int i = 1; i < 10; ++i) {
    EXPECT_NEAR(on->records[i].ttft_s, 0.488, 1e-9) << i;
    EXPECT_EQ(on->records[i].cached_tokens, 512);
  }
  EXPECT_DOUBLE_EQ(on->metrics.prefix_hit_rate, 9.0 * 512 / (10 * 1000));
  o.scheduler.prefix_caching = false;
  auto off = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->metrics.prefix_caching);
  EXPECT_NEAR(off->metrics.ttft_s.mean, 1.000, 1e-9);
}

// A trace's chunk ids: the second request shares the first's two leading chunks of 32 tokens, the third none.
TEST(PrefixCache, TraceChunkIdsShareAsFarAsTheyAgree) {
  ServeOptions o = testing::BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.prefix_hashes = {1, 2, 3, 1, 2, 4, 9, 2, 3};
  o.workload.prefix_block_tokens = 32;
  o.workload.trace = {{0.0, 100, 2, 0, 3}, {10.0, 100, 2, 3, 3}, {20.0, 100, 2, 6, 3}};
  o.scheduler.prefix_caching = true;
  o.keep_records = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto r = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->records[1].cached_tokens, 64);
  EXPECT_EQ(r->records[2].cached_tokens, 0);
  EXPECT_NEAR(r->records[1].ttft_s, 0.036, 1e-9);
  o.workload.prefix_block_tokens = 24;  // not a multiple of the 16-token block
  auto bad = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("prefix_block_tokens"), std::string::npos);
}

// Under memory pressure (a 13B model on a 40 GB GPU, hundreds of prefixes) every scheduler and preemption
// mode completes every request without over-committing the cache, and finds some prefixes cached.
TEST(PrefixCache, EverySchedulerRunsUnderPressureWithoutOvercommitting) {
  for (const char* name : {"vllm", "orca", "sarathi", "distserve"}) {
    for (Preemption p : {Preemption::kRecompute, Preemption::kSwap}) {
      ServeOptions o = testing::BaseOptions("llama2-13b", "a100-sxm4-40gb");
      o.hardware.replicas = 2;
      o.scheduler.name = name;
      o.scheduler.preemption = p;
      o.scheduler.prefix_caching = true;
      o.workload.rate = 3;
      o.workload.requests = 600;
      o.workload.prompt = {.median = 1500, .sigma = 0.6, .max = 3500};
      o.workload.output = {.median = 300, .sigma = 0.8, .max = 500};
      o.workload.shared_prefix = {.tokens = 1024, .groups = 300};
      auto r = Simulate(o, Env().catalogs, nullptr);
      ASSERT_TRUE(r.ok()) << name << ": " << r.error().message;
      EXPECT_EQ(r->metrics.requests_completed, 600) << name;
      EXPECT_EQ(r->metrics.kv_overcommits, 0) << name;
      EXPECT_GT(r->metrics.prefix_hit_tokens, 0) << name;
    }
  }
}

// SGLang's cache_aware rule: out of balance (more than 32 requests apart and max > 1.0001 min) the least
// loaded replica; else the one caching more than half of the prompt; else the one caching least.
TEST(PrefixCache, CacheAwareRouterBalancesThenFollowsTheCache) {
  RouterRegistry routers("router");
  RegisterRouters(routers);
  auto router = routers.Create("cache-aware");
  ASSERT_TRUE(router.ok());
  ASSERT_TRUE((*router)->reads_cache());
  const std::vector<int64_t> tokens = {0, 0, 0};
  auto pick = [&](std::vector<int64_t> requests, std::vector<int64_t> cached, std::vector<int64_t> blocks) {
    return (*router)->Pick(RouteContext{tokens, requests, cached, blocks, 1000});
  };
  EXPECT_EQ(pick({40, 5, 9}, {900, 0, 0}, {0, 0, 0}), 1);       // 35 apart: balance first
  EXPECT_EQ(pick({30, 5, 9}, {900, 0, 600}, {0, 0, 0}), 0);     // 25 apart: the longest prefix, 90% cached
  EXPECT_EQ(pick({30, 5, 9}, {400, 0, 500}, {70, 50, 60}), 1);  // at most half cached: the smallest cache
  EXPECT_EQ(pick({30, 9, 5}, {0, 0, 0}, {0, 0, 0}), 2);         // nothing cached: the least loaded
}

// Two prefixes A, A, B, B on two replicas, far apart in time: round-robin puts each prefix on both replicas
// (four prefills of it), cache-aware keeps each on one (two), so two more requests find their 512 tokens.
TEST(PrefixCache, CacheAwareRoutingKeepsAPrefixOnOneReplica) {
  ServeOptions o = testing::BaseOptions("llama2-7b", "a100-sxm4-80gb");
  o.hardware.replicas = 2;
  o.workload.arrival = ArrivalKind::kTrace;
  o.workload.prefix_hashes = {1, 1, 2, 2};
  o.workload.prefix_block_tokens = 512;
  for (int i = 0; i < 4; ++i) o.workload.trace.push_back({10.0 * i, 1000, 2, i, 1});
  o.scheduler.prefix_caching = true;
  const auto cost = MakeConstantCostModel(Micros(1000), Millis(10));
  auto round_robin = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  o.scheduler.router = "cache-aware";
  auto aware = Simulate(o, *cost, Env().env->schedulers, Env().env->routers);
  ASSERT_TRUE(round_robin.ok() && aware.ok());
  EXPECT_EQ(round_robin->metrics.prefix_hit_tokens, 0);
  EXPECT_EQ(aware->metrics.prefix_hit_tokens, 2 * 512);
}

}  // namespace
}  // namespace dlsim::serve
