// dlsim train FILE [--json] [--trace OUT.json] [--html OUT.html] [--chakra DIR] [--compare-trace STEP.json]
// [--check] |
// --default ... Argument parsing only; the command is app::RunTrainCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/train_command.h"

namespace dlsim::cli {

void AddTrainCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd =
      app.add_subcommand("train", "Simulate one training step of a scenario (docs/scenario-format.md)");
  auto args = std::make_shared<app::TrainArgs>();
  cmd->add_option("FILE", args->file, "Training scenario (YAML)");
  cmd->add_flag("--default", args->use_default,
                "Use the embedded default scenario (Llama 3 8B on one DGX H100)");
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_option("--trace", args->trace_path,
                  "Write a Perfetto / Chrome trace JSON of the step to this file");
  cmd->add_option(
      "--chakra", args->chakra_dir,
      "Write the step as Chakra execution traces (one .et file per GPU and comm_group.json) into DIR, "
      "for ASTRA-sim and the Chakra tools");
  cmd->add_option("--html", args->html_path,
                  "Write a self-contained HTML report (timeline, memory, breakdown) to this file");
  cmd->add_option(
      "--compare-trace", args->compare_trace,
      "Print dlsim's step beside this profiled one (torch.profiler Kineto JSON, .gz too), category "
      "by category");
  cmd->add_flag("--check", args->check, "Only validate the scenario: print 'ok: <summary>' and exit 0");
  cmd->callback([args, &global] { Exit(app::RunTrainCommand(*args, global, CommandOut(), std::cerr)); });
}

}  // namespace dlsim::cli
