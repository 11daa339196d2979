// Automatic prefix caching of one replica (vLLM's automatic prefix caching, SGLang's radix cache), kept over
// the counts-only KV cache (kv_cache.h).
//
// A prompt is cut into chunks of `chunk_tokens` tokens (a multiple of the KV block size), each named by an
// id: a trace's chunk ids (Mooncake's hash_ids, which are prefix-aware: two prompts share a chunk's KV only
// as far as their ids agree from the first), or the chunks of a shared-prefix group. Once a prefill has
// computed a chunk, its blocks belong to the cache; the requests using it pin it (a reference count). An
// unpinned chunk stays cached in free blocks until an allocation needs them, the least recently released
// first, and of one prefix its last chunk before its first (vLLM's eviction order). A request pins the
// longest run of its leading chunks the cache holds, and its prefill starts after them: those tokens are
// neither computed nor allocated again. Only full chunks before a prompt's last token are cached (the last
// token is always computed, for its logits, as in vLLM V1's get_computed_blocks).
//
// Accounting: Request::blocks counts every block a request reads, Request::shared_blocks those in chunks it
// pins; KvCache::used() counts the requests' own blocks and each pinned chunk's blocks once. Cached chunks
// nobody pins are free blocks (Trim keeps them within KvCache::free()).
//
//   serve::PrefixCache cache(options.workload, options.scheduler.block_size);
//   cache.Pin(kv, r);      // at admission, before its first prefill chunk
//   cache.Insert(kv, r);   // when its prefill is done
//   cache.Release(kv, r);  // when it completes, is preempted or handed off
//
// Not thread-safe; one per replica. The workload must outlive it.
#ifndef DLSIM_SERVE_PREFIX_CACHE_H_
#define DLSIM_SERVE_PREFIX_CACHE_H_

#include <cstdint>
#include <list>
#include <unordered_map>

#include "dlsim/core/result.h"
#include "dlsim/serve/kv_cache.h"
#include "dlsim/serve/options.h"
#include "dlsim/serve/request.h"

namespace dlsim::serve {

class PrefixCache {
 public:
  // Chunks of w.prefix_block_tokens tokens (0: of `block_size`). Precondition: a multiple of block_size.
  PrefixCache(const WorkloadOptions& w, int block_size);

  // The chunks of r's prompt that may be cached: its full chunks before its last prompt token.
  int32_t CacheableChunks(const Request& r) const;
  // At admission, before any of r's prefill is computed (r holds no blocks): pins the longest run of r's
  // leading chunks the cache holds, taking an unpinned chunk's blocks back only while `kv` has them free
  // above its watermark, and counts their tokens as prefilled and in r's KV. Returns the tokens found.
  int64_t Pin(KvCache& kv, Request& r);
  // Undoes the Pin of a request that could not be admitted after all.
  void Unpin(KvCache& kv, Request& r);
  // When r's prefill is done: its cacheable chunks not pinned yet join the cache, pinned by r (a chunk
  // another request computed meanwhile is shared, and r's own copy freed).
  void Insert(KvCache& kv, Request& r);
  // Frees r's KV: its own blocks to the free pool, its chunks unpinned (cached while their blocks are free).
  void Release(KvCache& kv, Request& r);
  // Evicts unpinned chunks, least recently released first, until their blocks fit kv's free blocks.
  void Trim(const KvCache& kv);
  // The tokens of r's prompt Pin would find now (its leading chunks in the cache, pinned or not), changing
  // nothing: what a cache-aware router asks each replica.
  int64_t Match(const Request& r) const;

  int64_t looked_up_tokens() const { return looked_up_; }  // prefill tokens of the admissions that looked
  int64_t hit_tokens() const { return hit_; }              // of which found in the cache
  int64_t cached_blocks() const { return idle_chunks_ * chunk_blocks_; }  // unpinned, in free blocks
  int64_t chunk_tokens() const { return chunk_tokens_; }
  int64_t blocks() const { return static_cast<int64_t>(chunks_.size()) * chunk_blocks_; }  // pinned or not

 private:
  struct Chunk {
    int32_t refs = 0;
    std::list<uint64_t>::iterator idle;  // its place in idle_ while refs == 0
  };
  uint64_t Id(const Request& r, int32_t k) const;
  void Unref(KvCache& kv, uint64_t id);

  const WorkloadOptions& w_;
  int64_t chunk_tokens_ = 0;
  int64_t chunk_blocks_ = 0;
  std::unordered_map<uint64_t, Chunk> chunks_;
  std::list<uint64_t> idle_;  // unpinned chunks, least recently released first
  int64_t idle_chunks_ = 0;
  int64_t looked_up_ = 0, hit_ = 0;
};

// Whether a run of `o` caches prefixes: scheduler.prefix_caching on and a workload that names prefixes (a
// shared prefix, or a trace's chunk ids). Error: a chunk (workload.prefix_block_tokens) that is not a
// multiple of the KV block size.
Result<bool> PrefixCachingOn(const ServeOptions& o);

// Frees r's KV blocks in `kv`: through `cache` (may be null: no prefix caching).
void ReleaseKv(KvCache& kv, PrefixCache* cache, Request& r);

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_PREFIX_CACHE_H_
