// Runs fn(i, worker) for every i in [0, n) on up to `threads` threads (the calling one included):
// workers take `block` indices at a time from a shared counter, so an index runs exactly once and
// whatever fn writes to slot i lands in index order whatever the thread count.
//
//   std::vector<double> out(n);
//   ParallelFor(n, /*threads=*/4, /*block=*/8, [&](size_t i, int) { out[i] = f(i); }, {});
#ifndef DLSIM_CORE_PARALLEL_FOR_H_
#define DLSIM_CORE_PARALLEL_FOR_H_

#include <cstddef>
#include <functional>

#include "dlsim/core/progress.h"

namespace dlsim {

// `worker` is in [0, min(threads, n)); fn runs concurrently on different workers, never twice at
// once on the same one. When cancellation is requested (core/cancel.h) workers take no further block and
// some indices never run: a caller must check CancelRequested() afterwards and return CancelledError().
// `progress` (may be empty) hears of the indices done so far, from the workers. Preconditions: threads >= 1,
// block >= 1.
void ParallelFor(size_t n, int threads, size_t block, const std::function<void(size_t i, int worker)>& fn,
                 const ProgressFn& progress);

// The common case: body(i) for every i, one index at a time, no progress. threads <= 0: one per
// hardware thread; never more threads than items.
void ParallelFor(size_t n, int threads, const std::function<void(size_t i)>& body);

}  // namespace dlsim

#endif  // DLSIM_CORE_PARALLEL_FOR_H_
