#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "commands.h"
#include "dlsim/report/format.h"

namespace dlsim::cli {

bool ProgressLine::Enabled(bool quiet) { return !quiet && isatty(STDERR_FILENO); }

void ProgressLine::Update(size_t done, size_t total) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  constexpr int kWidth = 24;
  const int filled = total ? static_cast<int>(kWidth * std::min(done, total) / total) : kWidth;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
  std::string eta = "";
  if (rate > 0 && done < total)
    eta = "  ETA " + report::FormatDuration(Duration::FromSeconds(static_cast<double>(total - done) / rate));
  fmt::print(stderr, "\r[{}{}] {}/{} {}  {:.3g}/s{}   ", std::string(filled, '#'),
             std::string(kWidth - filled, ' '), report::FormatCount(static_cast<int64_t>(done)),
             report::FormatCount(static_cast<int64_t>(total)), unit_, rate, eta);
  drawn_ = true;
}

void ProgressLine::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) fmt::print(stderr, "\r{}\r", std::string(96, ' '));
  drawn_ = false;
}

int WithProgress(const std::string& unit, bool quiet, const std::function<int(ProgressFn)>& command) {
  auto line = std::make_shared<ProgressLine>(unit);
  ProgressFn progress;
  if (ProgressLine::Enabled(quiet))
    progress = [line](size_t done, size_t total) { line->Update(done, total); };
  const int code = command(std::move(progress));
  line->Finish();
  return code;
}

CLI::Option* AddQuietAndRun(CLI::App* cmd, const std::string& unit, const std::string& quiet_help,
                            std::function<int(ProgressFn)> run) {
  auto quiet = std::make_shared<bool>(false);
  CLI::Option* flag = cmd->add_flag("--quiet", *quiet, quiet_help);
  cmd->callback([unit, quiet, run = std::move(run)] { Exit(WithProgress(unit, *quiet, run)); });
  return flag;
}

}  // namespace dlsim::cli
