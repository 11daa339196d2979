// How a long run reports its progress: `done` of `total` units (candidates, sweep points,
// steps) finished so far. The callee may be called from several worker threads at once and
// synchronises itself; results never depend on it (an empty function is the default).
//
//   dlsim::ProgressFn progress = [&bar](size_t done, size_t total) { bar.Update(done, total); };
#ifndef DLSIM_CORE_PROGRESS_H_
#define DLSIM_CORE_PROGRESS_H_

#include <cstddef>
#include <functional>

namespace dlsim {

using ProgressFn = std::function<void(size_t done, size_t total)>;

}  // namespace dlsim

#endif  // DLSIM_CORE_PROGRESS_H_
