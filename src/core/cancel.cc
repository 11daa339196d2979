#include "dlsim/core/cancel.h"

#include <atomic>

namespace dlsim {
namespace {

std::atomic<bool> requested{false};
static_assert(std::atomic<bool>::is_always_lock_free, "RequestCancel must be async-signal-safe");

}  // namespace

void RequestCancel() noexcept { requested.store(true, std::memory_order_relaxed); }
void ClearCancel() noexcept { requested.store(false, std::memory_order_relaxed); }
bool CancelRequested() noexcept { return requested.load(std::memory_order_relaxed); }

Error CancelledError() {
  return {ErrorCode::kCancelled,
          "interrupted: the run was stopped before it finished (Ctrl-C); nothing was printed"};
}

}  // namespace dlsim
