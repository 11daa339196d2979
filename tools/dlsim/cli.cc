// The dlsim command line (cli.h): argument parsing and printing only, no model logic.
#include "cli.h"

#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "commands.h"
#include "dlsim/core/cancel.h"
#include "dlsim/core/machine_memory.h"
#include "dlsim/core/strings.h"

namespace dlsim::cli {

void Fail(const std::string& command, const std::string& message, int code) {
  fmt::print(stderr, "dlsim {}: {}\n", command, message);
  throw CLI::RuntimeError(code);
}

namespace {
std::ostringstream& HeldOutput() {
  static std::ostringstream* out = new std::ostringstream;
  return *out;
}
}  // namespace

std::ostream& CommandOut() { return HeldOutput(); }

void Exit(int code) {
  if (CancelRequested()) {
    fmt::print(stderr, "dlsim: {}\n", CancelledError().message);
    throw CLI::RuntimeError(app::kExitInterrupted);
  }
  std::cout << HeldOutput().str();
  HeldOutput().str("");  // the next command in this process (the CLI fuzzer runs many) starts empty
  std::cout.flush();
  if (code == 0 && !std::cout) {  // e.g. stdout is /dev/full: the result was not delivered
    fmt::print(stderr, "dlsim: cannot write the output to stdout\n");
    code = app::kExitError;
  }
  if (code != 0) throw CLI::RuntimeError(code);
}

}  // namespace dlsim::cli

namespace {

// The names of the commands, for "unknown command" messages.
std::vector<std::string> CommandNames(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

// A command-line error: the message, a hint where one helps, and exit code 2 (app::kExitUsage).
int UsageError(const CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  std::string message = e.what();
  const std::string first = argc > 1 ? argv[1] : "";
  if (argc < 2) {
    message = "give a command; commands: " + dlsim::Join(CommandNames(app), ", ");
  } else if (!first.empty() && first[0] != '-' && app.get_subcommands().empty()) {
    message = dlsim::UnknownNameMessage("command", first, CommandNames(app));
  }
  const std::vector<CLI::App*> parsed = app.get_subcommands();
  const std::string help = parsed.empty() ? "dlsim --help" : "dlsim " + parsed[0]->get_name() + " --help";
  fmt::print(stderr, "dlsim: {}\nRun '{}' for the options.\n", message, help);
  return dlsim::app::kExitUsage;
}

// An option value that is empty, or a comma-separated list with an empty item ("fifo,,las"), is a
// command-line error: an empty path or name would otherwise be ignored or mean "the default".
std::string NonEmptyValue(std::string& value) {
  if (value.empty()) return "expected a value, found an empty string";
  return dlsim::app::EmptyListItem(value);  // a single value is a one-item list
}

// Applies NonEmptyValue to every option of `app` and its commands that takes a value (not flags).
void RejectEmptyValues(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_size() != 0) opt->check(CLI::Validator(NonEmptyValue, ""));
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) RejectEmptyValues(*sub);
}

// The options that name a file or folder a command writes (every command uses these names).
constexpr const char* kOutputOptions[] = {"html", "trace", "csv", "series", "write-best", "output", "chakra"};

bool IsOutputOption(const CLI::Option* opt) {
  return std::any_of(std::begin(kOutputOptions), std::end(kOutputOptions),
                     [opt](const char* name) { return opt->check_lname(name); });
}

// `--check` only validates the scenario (or, for repro, compares verdicts): an output option beside it would
// write nothing, so it is a command-line error rather than silently ignored (issue 35).
void RefuseOutputsWithCheck(const CLI::App& app) {
  const CLI::Option* check = app.get_option_no_throw("--check");
  if (check == nullptr || check->count() == 0) return;
  for (const CLI::Option* opt : app.get_options())
    if (IsOutputOption(opt) && opt->count() > 0)
      throw CLI::ValidationError(opt->get_name(), "not written with --check (it only checks); drop one");
}

// Two output options naming the same path would overwrite each other silently (issue 35): a
// command-line error naming both, checked once the command line is parsed.
void RequireDistinctOutputs(CLI::App& app) {
  app.parse_complete_callback([&app] {
    RefuseOutputsWithCheck(app);
    std::map<std::string, std::string> seen;  // normalised path -> option
    for (const CLI::Option* opt : app.get_options()) {
      if (!IsOutputOption(opt) || opt->count() == 0) continue;
      std::error_code ec;
      const std::string path = std::filesystem::weakly_canonical(opt->as<std::string>(), ec).string();
      const auto [it, fresh] = seen.emplace(ec ? opt->as<std::string>() : path, opt->get_name());
      if (!fresh)
        throw CLI::ValidationError(opt->get_name(), "names the same path as " + it->second + " (" +
                                                        it->first + "); give each output its own file");
    }
  });
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    RequireDistinctOutputs(*sub);
}

}  // namespace

namespace {

// The out-of-memory line: the command that ran, the machine's memory, and what to do. Reached only past the
// size checks (core/machine_memory.h), so an estimate was short: it says so.
void OutOfMemory(int argc, char** argv) {
  std::string command = "dlsim";
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  const double gib = dlsim::PhysicalMemoryBytes() / (1024.0 * 1024 * 1024);
  fmt::print(stderr,
             "dlsim: out of memory running `{}`: the input passed dlsim's size checks, which count {} of "
             "memory here, and then an allocation failed (an estimate was short, or the process may use less "
             "than that, as under a container's limit: please report the input). Run a smaller share of it, "
             "or set DLSIM_MEMORY_GIB to the memory really available so that the checks refuse it up front\n",
             command, gib > 0 ? fmt::format("{:.1f} GiB", gib) : std::string("(unknown)"));
}

}  // namespace

namespace dlsim::cli {

int Run(int argc, char** argv) {
  HeldOutput().str("");  // left by a command that failed before Exit()
  CLI::App app{"dlsim: a data-aware simulator and planner for deep-learning training and serving"};
  app.require_subcommand(1);
  app.fallthrough();  // options of dlsim itself (--catalog) may also follow the command name
  app.set_help_all_flag("--help-all", "Show help for every command");
  GlobalOptions global;
  app.add_option("--catalog", global.catalog_files,
                 "YAML file adding or overriding GPUs, nodes, networks or models (repeatable)")
      ->check(CLI::ExistingFile);
  app.add_option("--calibration", global.calibration_files,
                 "Calibration file from 'dlsim calibrate' laid over the shipped constants (repeatable)")
      ->check(CLI::ExistingFile);
  app.set_version_flag("--version,-V", std::string("dlsim ") + DLSIM_VERSION,
                       "Print the dlsim version and exit");
  auto* version = app.add_subcommand("version", "Print the dlsim version");
  version->callback([] { fmt::print("dlsim {}\n", DLSIM_VERSION); });
  AddCatalogCommands(app, global);
  AddListCommand(app, global);
  AddTrainCommand(app, global);
  AddServeCommand(app, global);
  AddClusterCommand(app, global);
  AddGnnCommand(app, global);
  AddPlanCommand(app, global);
  AddValidateCommand(app, global);
  AddReproCommand(app, global);
  AddKernelsCommand(app, global);
  AddCalibrateCommand(app, global);
  RejectEmptyValues(app);
  RequireDistinctOutputs(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::RuntimeError& e) {  // a command's own exit code (app::ExitCode)
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return UsageError(app, e, argc, argv);
  } catch (const std::bad_alloc&) {  // the safety net behind the size checks of every reader
    OutOfMemory(argc, argv);
    return 1;
  }
  return 0;
}

}  // namespace dlsim::cli
