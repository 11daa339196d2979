// dlsim calibrate RUNS.csv [-o FILE] [--fit a,b] [--threads N] [--json]: fit the stack's constants to
// measured runs. Argument parsing only; the command is app::RunCalibrateCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/calibrate_command.h"

namespace dlsim::cli {

void AddCalibrateCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "calibrate",
      "Fit the stack's constants to your measured runs and write a calibration file (docs/calibration.md)");
  auto args = std::make_shared<app::CalibrateArgs>();
  cmd->add_option(
         "file", args->file,
         "RUNS.csv: step_time_s, optional scenario, peak_memory_gib, label, and scenario keys as columns")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--output", args->output, "Write the calibration here (for --calibration FILE)");
  cmd->add_option("--fit", args->fit,
                  "Constants to fit: gemm, fp8_gemm, attention, elementwise, host, memory (default: the most "
                  "sensitive, one per two runs); none: only score the runs with the current constants");
  cmd->add_option("--threads", args->threads, "Threads for the leave-one-run-out refits")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the fit as JSON");
  cmd->callback([&global, args] { Exit(app::RunCalibrateCommand(*args, global, std::cout, std::cerr)); });
}

}  // namespace dlsim::cli
