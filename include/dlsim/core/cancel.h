// Cooperative cancellation of long runs (issue 35: Ctrl-C must stop any run, from the CLI and from Python).
// The CLI's SIGINT handler and the Python binding (on KeyboardInterrupt) call RequestCancel(); the loops that
// can run long poll CancelRequested() and stop: the cluster engine's and the serving simulator's event loops
// (every kCancelPollEvents events) and ParallelFor's workers (before each block), whose callers then return
// CancelledError(). A command that gets it exits 130, as a shell does for SIGINT.
//
//   if (CancelRequested()) return CancelledError();
//
// Process-wide and thread-safe (a lock-free atomic); RequestCancel is async-signal-safe. Nothing clears the
// request but ClearCancel(): a run started after a cancelled one must clear it first (the Python binding
// does).
#ifndef DLSIM_CORE_CANCEL_H_
#define DLSIM_CORE_CANCEL_H_

#include <cstdint>

#include "dlsim/core/result.h"

namespace dlsim {

inline constexpr uint64_t kCancelPollEvents = 4096;  // event loops look at the request this often

void RequestCancel() noexcept;
void ClearCancel() noexcept;
bool CancelRequested() noexcept;
// ErrorCode::kCancelled: "interrupted: the run was stopped before it finished (Ctrl-C); nothing was printed".
Error CancelledError();

}  // namespace dlsim

#endif  // DLSIM_CORE_CANCEL_H_
