// dlsim calibrate RUNS.csv | --serve RUNS.csv | --trace STEP.json.gz ... [-o FILE] [--fit a,b] [--json]: fit
// the stack's constants to measured runs. Argument parsing only; the command is app::RunCalibrateCommand.
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
      ->check(CLI::ExistingFile);
  cmd->add_option(
         "--trace", args->traces,
         "Profiled step (torch.profiler Kineto / Chrome trace JSON, .json or .json.gz; repeatable): fit the "
         "stack's kernel constants and host time to it instead of RUNS.csv")
      ->check(CLI::ExistingFile);
  cmd->add_flag(
      "--serve", args->serve,
      "RUNS.csv holds serving runs (scenario, tpot_ms, optional ttft_ms, label): fit the engine's CPU "
      "time per step, per request and on the first-token path (docs/calibration.md)");
  cmd->add_flag(
      "--with-host", args->with_host,
      "With --trace: also write the traced host time per layer (it includes the profiler's own overhead)");
  cmd->add_option("--gpu", args->gpu,
                  "With --trace: the traces' GPU (catalog name; default: from the trace)");
  cmd->add_option("-o,--output", args->output, "Write the calibration here (for --calibration FILE)");
  cmd->add_option("--fit", args->fit,
                  "Constants to fit: gemm, fp8_gemm, attention, elementwise, host, memory (default: the most "
                  "sensitive, one per two runs); none: only score the runs with the current constants");
  cmd->add_option("--threads", args->threads, "Threads for the leave-one-run-out refits")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  cmd->add_flag("--json", args->json, "Print the fit as JSON");
  cmd->callback([&global, args] { Exit(app::RunCalibrateCommand(*args, global, CommandOut(), std::cerr)); });
}

}  // namespace dlsim::cli
