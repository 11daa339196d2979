// Sub-commands of the dlsim CLI. Each file cmd_<name>.cc adds one command group to the app:
// it parses arguments and calls the command in src/app (app/<name>_command.h), which reads,
// runs and renders. Exit codes: app/command.h (0 ran, 1 bad input, 2 usage, 3 infeasible).
#ifndef DLSIM_TOOLS_COMMANDS_H_
#define DLSIM_TOOLS_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "dlsim/app/command.h"
#include "dlsim/core/progress.h"

namespace dlsim::cli {

// Options shared by every command (--catalog FILE, repeatable).
using GlobalOptions = app::CommonArgs;

// Ends the command with `code` (an app::ExitCode): returns for 0, throws CLI::RuntimeError
// otherwise (CLI11 turns it into the process exit code).
void Exit(int code);
// Where a command writes its result: held back until Exit(), which prints it, or, when the run was
// interrupted (Ctrl-C: core/cancel.h), prints nothing and exits 130 — an interrupted run never leaves half a
// result on stdout. Progress and errors go to std::cerr as they happen.
std::ostream& CommandOut();
// Adds --quiet (help `quiet_help`; the option is returned, e.g. for ->needs) and makes `cmd`'s callback run
// `run` with a progress line of `unit` (WithProgress, progress.h), ending with Exit(its code).
CLI::Option* AddQuietAndRun(CLI::App* cmd, const std::string& unit, const std::string& quiet_help,
                            std::function<int(ProgressFn)> run);

void AddCatalogCommands(CLI::App& app, GlobalOptions& global);   // cmd_catalog.cc
void AddListCommand(CLI::App& app, GlobalOptions& global);       // cmd_list.cc
void AddTrainCommand(CLI::App& app, GlobalOptions& global);      // cmd_train.cc
void AddServeCommand(CLI::App& app, GlobalOptions& global);      // cmd_serve.cc
void AddClusterCommand(CLI::App& app, GlobalOptions& global);    // cmd_cluster.cc
void AddGnnCommand(CLI::App& app, GlobalOptions& global);        // cmd_gnn.cc
void AddPlanCommand(CLI::App& app, GlobalOptions& global);       // cmd_plan.cc
void AddValidateCommand(CLI::App& app, GlobalOptions& global);   // cmd_validate.cc
void AddReproCommand(CLI::App& app, GlobalOptions& global);      // cmd_repro.cc
void AddKernelsCommand(CLI::App& app, GlobalOptions& global);    // cmd_kernels.cc
void AddCalibrateCommand(CLI::App& app, GlobalOptions& global);  // cmd_calibrate.cc

// Prints "dlsim <command>: <message>" to stderr and throws CLI::RuntimeError(code).
[[noreturn]] void Fail(const std::string& command, const std::string& message, int code = 1);

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_COMMANDS_H_
