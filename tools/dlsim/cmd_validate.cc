// dlsim validate [--set TEXT] [--json] [--summary]
// Argument parsing only; the command is app::RunValidateCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/validate_command.h"

namespace dlsim::cli {

void AddValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd =
      app.add_subcommand("validate", "Compare predictions with published measurements (MAPE per set)");
  auto args = std::make_shared<app::ValidateArgs>();
  cmd->add_option("--set", args->only, "Only sets whose name contains this text");
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--summary", args->summary, "Only the per-set summary");
  cmd->callback([&global, args] { Exit(app::RunValidateCommand(*args, global, std::cout, std::cerr)); });
}

}  // namespace dlsim::cli
