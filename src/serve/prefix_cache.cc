#include "dlsim/serve/prefix_cache.h"

#include <algorithm>
#include <cassert>
#include <string>

namespace dlsim::serve {

PrefixCache::PrefixCache(const WorkloadOptions& w, int block_size)
    : w_(w), chunk_tokens_(w.prefix_block_tokens > 0 ? w.prefix_block_tokens : block_size) {
  assert(block_size > 0 && chunk_tokens_ % block_size == 0);
  chunk_blocks_ = chunk_tokens_ / block_size;
}

int32_t PrefixCache::CacheableChunks(const Request& r) const {
  const int64_t named = r.prefix_group >= 0 ? w_.shared_prefix.tokens / chunk_tokens_ : r.prefix_chunks;
  return static_cast<int32_t>(std::min<int64_t>(named, (r.prompt - 1) / chunk_tokens_));
}

// A shared-prefix group's chunk k: the top bit set (a trace's ids come from one source or the other).
uint64_t PrefixCache::Id(const Request& r, int32_t k) const {
  if (r.prefix_group >= 0)
    return (uint64_t{1} << 63) | (static_cast<uint64_t>(r.prefix_group) << 32) | static_cast<uint32_t>(k);
  return w_.prefix_hashes[static_cast<size_t>(r.prefix_first) + static_cast<size_t>(k)];
}

int64_t PrefixCache::Pin(KvCache& kv, Request& r) {
  assert(r.blocks == 0 && r.prefilled == 0 && r.kv_tokens == 0);
  Trim(kv);
  const int32_t n = CacheableChunks(r);
  int32_t k = 0;
  for (; k < n; ++k) {
    auto it = chunks_.find(Id(r, k));
    if (it == chunks_.end()) break;
    Chunk& c = it->second;
    if (c.refs == 0) {  // cached in free blocks: take them back
      if (!kv.CanAllocate(chunk_blocks_, true)) break;
      kv.Allocate(chunk_blocks_);
      idle_.erase(c.idle);
      --idle_chunks_;
    }
    ++c.refs;
  }
  const auto tokens = static_cast<int32_t>(k * chunk_tokens_);
  r.pinned_chunks = k;
  r.blocks = r.shared_blocks = static_cast<int32_t>(k * chunk_blocks_);
  r.prefilled = r.kv_tokens = tokens;
  r.cached_tokens += tokens;
  looked_up_ += r.prefill_target;
  hit_ += tokens;
  return tokens;
}

int64_t PrefixCache::Match(const Request& r) const {
  const int32_t n = CacheableChunks(r);
  int32_t k = 0;
  while (k < n && chunks_.count(Id(r, k)) != 0) ++k;
  return k * chunk_tokens_;
}

void PrefixCache::Unpin(KvCache& kv, Request& r) {
  looked_up_ -= r.prefill_target;
  hit_ -= r.prefilled;
  r.cached_tokens -= r.prefilled;
  r.prefilled = r.kv_tokens = 0;
  Release(kv, r);
}

void PrefixCache::Insert(KvCache& kv, Request& r) {
  const int32_t n = CacheableChunks(r);
  for (int32_t k = r.pinned_chunks; k < n; ++k) {
    auto [it, fresh] = chunks_.try_emplace(Id(r, k));
    Chunk& c = it->second;
    if (!fresh && c.refs == 0) {  // cached meanwhile and unpinned: r's copy is freed, the cached one pinned
      idle_.erase(c.idle);
      --idle_chunks_;
    } else if (!fresh) {  // pinned by another request: r's copy is freed
      kv.Release(chunk_blocks_);
    }
    ++c.refs;
    r.shared_blocks += static_cast<int32_t>(chunk_blocks_);
    ++r.pinned_chunks;
  }
}

void PrefixCache::Unref(KvCache& kv, uint64_t id) {
  Chunk& c = chunks_.at(id);
  assert(c.refs > 0);
  if (--c.refs > 0) return;
  kv.Release(chunk_blocks_);
  c.idle = idle_.insert(idle_.end(), id);
  ++idle_chunks_;
}

void PrefixCache::Release(KvCache& kv, Request& r) {
  kv.Release(r.blocks - r.shared_blocks);
  // The last chunk first: released earlier, it is evicted before the chunks its prefix needs.
  for (int32_t k = r.pinned_chunks - 1; k >= 0; --k) Unref(kv, Id(r, k));
  r.blocks = r.shared_blocks = r.pinned_chunks = 0;
}

void PrefixCache::Trim(const KvCache& kv) {
  while (idle_chunks_ > 0 && cached_blocks() > kv.free()) {
    chunks_.erase(idle_.front());
    idle_.pop_front();
    --idle_chunks_;
  }
}

Result<bool> PrefixCachingOn(const ServeOptions& o) {
  const WorkloadOptions& w = o.workload;
  if (!o.scheduler.prefix_caching || (w.shared_prefix.tokens <= 0 && w.prefix_hashes.empty())) return false;
  const int64_t chunk = w.prefix_block_tokens;
  if (chunk < 0 || chunk % o.scheduler.block_size != 0)
    return Error::InvalidArgument("workload.prefix_block_tokens: " + std::to_string(chunk) +
                                  " is not a multiple of scheduler.block_size (" +
                                  std::to_string(o.scheduler.block_size) + ")");
  return true;
}

void ReleaseKv(KvCache& kv, PrefixCache* cache, Request& r) {
  if (cache != nullptr) {
    cache->Release(kv, r);
    return;
  }
  kv.Release(r.blocks);
  r.blocks = 0;
}

}  // namespace dlsim::serve
