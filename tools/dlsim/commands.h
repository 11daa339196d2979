// Sub-commands of the dlsim CLI. Each file cmd_<name>.cc adds one command group to the app.
// Commands parse arguments, call io and a driver, and print; no model logic lives here.
// A command reports failure by throwing CLI::RuntimeError(exit_code) after printing the
// error to stderr.
#ifndef DLSIM_TOOLS_COMMANDS_H_
#define DLSIM_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace dlsim::cli {

// Options shared by every command.
struct GlobalOptions {
  std::vector<std::string> catalog_files;  // --catalog FILE (repeatable): add/override entries
};

void AddCatalogCommands(CLI::App& app, GlobalOptions& global);  // cmd_catalog.cc
void AddListCommand(CLI::App& app, GlobalOptions& global);      // cmd_list.cc
void AddTrainCommand(CLI::App& app, GlobalOptions& global);     // cmd_train.cc
void AddServeCommand(CLI::App& app, GlobalOptions& global);     // cmd_serve.cc
void AddPlanCommand(CLI::App& app, GlobalOptions& global);      // cmd_plan.cc
void AddValidateCommand(CLI::App& app, GlobalOptions& global);  // cmd_validate.cc
void AddReproCommand(CLI::App& app, GlobalOptions& global);     // cmd_repro.cc

// Prints "dlsim <command>: <message>" to stderr and throws CLI::RuntimeError(code).
[[noreturn]] void Fail(const std::string& command, const std::string& message, int code = 1);
// For commands that later issues bring: says so clearly and exits with code 2.
[[noreturn]] void NotYetAvailable(const std::string& command, const std::string& issue);

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_COMMANDS_H_
