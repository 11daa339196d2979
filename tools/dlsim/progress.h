// The CLI's progress line on stderr for long runs (plan, cluster --sweep):
//   [##########              ] 412/1,650 candidates  38.2/s  ETA 32 s
// redrawn at most every 100 ms, cleared before the report is printed. Drawn only when stderr is
// a terminal and --quiet was not given (Enabled); results never depend on it. Thread-safe.
#ifndef DLSIM_TOOLS_PROGRESS_H_
#define DLSIM_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "dlsim/core/progress.h"

namespace dlsim::cli {

class ProgressLine {
 public:
  explicit ProgressLine(std::string unit)
      : unit_(std::move(unit)), start_(std::chrono::steady_clock::now()) {}
  // True when stderr is a terminal and `quiet` is false.
  static bool Enabled(bool quiet);
  void Update(size_t done, size_t total);
  // Clears the line (before the report or an error is printed).
  void Finish();

 private:
  std::mutex mu_;
  std::string unit_;
  std::chrono::steady_clock::time_point start_, last_{};
  bool drawn_ = false;
};

// Runs `command` with a ProgressFn that draws a line of `unit` (an empty one unless
// ProgressLine::Enabled(quiet)), clears the line and returns the command's exit code.
int WithProgress(const std::string& unit, bool quiet, const std::function<int(ProgressFn)>& command);

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_PROGRESS_H_
