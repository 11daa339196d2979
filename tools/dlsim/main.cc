// The dlsim command line: argument parsing and printing only, no model logic.
#include <fmt/core.h>

#include <iostream>

#include "commands.h"

namespace dlsim::cli {

void Fail(const std::string& command, const std::string& message, int code) {
  fmt::print(stderr, "dlsim {}: {}\n", command, message);
  throw CLI::RuntimeError(code);
}

void Exit(int code) {
  std::cout.flush();
  if (code != 0) throw CLI::RuntimeError(code);
}

}  // namespace dlsim::cli

int main(int argc, char** argv) {
  CLI::App app{"dlsim: a data-aware simulator and planner for deep-learning training and serving"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Show help for every command");
  dlsim::cli::GlobalOptions global;
  app.add_option("--catalog", global.catalog_files,
                 "YAML file adding or overriding GPUs, nodes, networks or models (repeatable)")
      ->check(CLI::ExistingFile);
  auto* version = app.add_subcommand("version", "Print the dlsim version");
  version->callback([] { fmt::print("dlsim {}\n", DLSIM_VERSION); });
  dlsim::cli::AddCatalogCommands(app, global);
  dlsim::cli::AddListCommand(app, global);
  dlsim::cli::AddTrainCommand(app, global);
  dlsim::cli::AddServeCommand(app, global);
  dlsim::cli::AddPlanCommand(app, global);
  dlsim::cli::AddValidateCommand(app, global);
  dlsim::cli::AddReproCommand(app, global);
  CLI11_PARSE(app, argc, argv);
  return 0;
}
