// Paged KV-cache block accounting of one replica (vLLM's block manager, counts only).
//
// Blocks are interchangeable, so the manager tracks counts, not block ids. Allocation never
// exceeds the total (Allocate asserts CanAllocate); a watermark of free blocks can be kept back
// when admitting new prefills so that running decodes can still grow. Utilisation over time is
// integrated exactly between calls to Advance().
//
//   serve::KvCache kv(/*total_blocks=*/2000, /*block_size=*/16, /*watermark=*/0.01);
//   if (kv.CanAllocate(kv.BlocksFor(600), /*keep_watermark=*/true)) kv.Allocate(kv.BlocksFor(600));
//
// Not thread-safe; one per replica.
#ifndef DLSIM_SERVE_KV_CACHE_H_
#define DLSIM_SERVE_KV_CACHE_H_

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>

#include "dlsim/core/units.h"

namespace dlsim::serve {

class KvCache {
 public:
  KvCache() = default;
  KvCache(int64_t total_blocks, int block_size, double watermark)
      : total_(total_blocks),
        block_size_(block_size),
        watermark_blocks_(static_cast<int64_t>(watermark * static_cast<double>(total_blocks))) {}

  // Sliding-window models (engine_profile.h WindowedAttention): a `share` of the layers keeps only the blocks
  // holding its last `window` tokens (vLLM frees those wholly outside the window), so a request's blocks,
  // each block_size tokens of every layer, are its full layers' blocks plus that share of its window's,
  // rounded up. window 0 or share 0: every layer keeps every token.
  void SetWindow(int64_t window, double share) {
    window_ = window;
    window_share_ = window > 0 ? share : 0.0;
  }
  // Blocks a request holding `tokens` tokens needs (non-decreasing in tokens).
  int64_t BlocksFor(int64_t tokens) const {
    const int64_t full = (tokens + block_size_ - 1) / block_size_;
    if (window_share_ <= 0 || full <= 0) return full;
    const int64_t windowed = std::min(full, (window_ - 1 + block_size_ - 1) / block_size_ + 1);
    const double blocks = (1 - window_share_) * static_cast<double>(full) + window_share_ * windowed;
    return std::min(full, static_cast<int64_t>(std::ceil(blocks - 1e-9)));
  }
  bool CanAllocate(int64_t n, bool keep_watermark) const {
    return used_ + n + (keep_watermark ? watermark_blocks_ : 0) <= total_;
  }
  // Precondition: CanAllocate(n, false).
  void Allocate(int64_t n) {
    assert(CanAllocate(n, false));
    used_ += n;
    if (used_ > peak_) peak_ = used_;
  }
  // Precondition: n <= used().
  void Release(int64_t n) {
    assert(n <= used_);
    used_ -= n;
  }
  // Integrates used blocks over time up to `now` (monotonic).
  void Advance(TimePoint now) {
    used_time_ += static_cast<double>(used_) * static_cast<double>((now - last_).ToNanos());
    last_ = now;
  }
  // Time-weighted mean of used/total from the start to the last Advance().
  double MeanUtilization() const {
    const double span = static_cast<double>(last_.ToNanos());
    return span > 0 && total_ > 0 ? used_time_ / span / static_cast<double>(total_) : 0.0;
  }

  int64_t total() const { return total_; }
  int64_t used() const { return used_; }
  int64_t free() const { return total_ - used_; }
  int64_t peak() const { return peak_; }
  int block_size() const { return block_size_; }
  int64_t watermark_blocks() const { return watermark_blocks_; }

 private:
  int64_t total_ = 0;
  int block_size_ = 16;
  int64_t watermark_blocks_ = 0;
  int64_t window_ = 0;
  double window_share_ = 0;
  int64_t used_ = 0;
  int64_t peak_ = 0;
  double used_time_ = 0;  // block-nanoseconds
  TimePoint last_;
};

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_KV_CACHE_H_
