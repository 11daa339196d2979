// What every dlsim command shares: the exit codes, how an error becomes one, and the options
// that come before the command name. The commands (one file each, app/X_command.h) read a
// scenario, run a module's Simulate and render its result; tools/dlsim only parses arguments.
//
//   int code = app::RunTrainCommand(args, common, std::cout, std::cerr);
//   return code;  // one of ExitCode
#ifndef DLSIM_APP_COMMAND_H_
#define DLSIM_APP_COMMAND_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::app {

// The exit codes of every command (docs/scenario-format.md).
enum ExitCode : int {
  kExitOk = 0,             // ran; the result is feasible (or the command has no feasibility)
  kExitError = 1,          // bad input (scenario, catalog, file) or a failure to write output
  kExitUsage = 2,          // wrong command line
  kExitInfeasible = 3,     // ran; the configuration cannot run (the result says why)
  kExitInterrupted = 130,  // stopped by Ctrl-C (core/cancel.h), as a shell reports SIGINT
};

// Options given before the command name.
struct CommonArgs {
  std::vector<std::string> catalog_files;  // --catalog FILE (repeatable): add/override entries
  // --calibration FILE (repeatable): a training calibration (`dlsim calibrate`'s output) laid over
  // the shipped constants.
  std::vector<std::string> calibration_files;
};

// Writes "dlsim <command>: <message>" to `err` and returns the exit code for `error`:
// kExitInfeasible for ErrorCode::kInfeasible, kExitInterrupted for kCancelled, kExitError otherwise.
int ReportError(const std::string& command, const Error& error, std::ostream& err);

// A command's JSON output as deterministic text (report::DumpDeterministic), stamped with the dlsim version
// that produced it (`dlsim_version`, added to an object that lacks it), so a result can be traced to its
// tool.
std::string JsonOutput(nlohmann::ordered_json j);
// `result` (an object) with `dlsim_version` and `inputs`, the run's resolved scenario
// (io/resolved_scenario.h), added at its end: what a --json result carries so that it can be traced and
// re-run.
nlohmann::ordered_json WithInputs(nlohmann::ordered_json result, nlohmann::ordered_json inputs);

// Argument rules every way in shares (a flag, a Python keyword): the command-line parser checks them too, but
// the Python API reaches the commands without it (issue 35). An error names the argument, e.g. "threads: -1
// is not in 0..4096". A number must be finite and within [lo, hi]; a comma-separated list must have no empty
// item.
Status CheckArgument(const std::string& name, double value, double lo, double hi);
Status CheckListArgument(const std::string& name, const std::string& list);
// "the list 'a,,b' has an empty item" when `list` (comma-separated, non-empty) has one; "" otherwise.
std::string EmptyListItem(const std::string& list);
// Reports `status`'s error for `command` and returns kExitUsage (2), the exit code of a bad argument.
int ReportUsage(const std::string& command, const Status& status, std::ostream& err);

// Writes `text` to `path` whole or not at all (through `path`.tmp in the same folder, then a rename); refuses
// a path that is one of the command's inputs (core/input_files.h). `what` names the file in errors ("the
// calibration file").
Status WriteFileWhole(const std::string& path, const std::string& text, const std::string& what);

// The exit code of a result that ran: kExitOk when feasible, kExitInfeasible otherwise.
inline int ExitCodeOf(bool feasible) { return feasible ? kExitOk : kExitInfeasible; }

}  // namespace dlsim::app

#endif  // DLSIM_APP_COMMAND_H_
