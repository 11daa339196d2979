// The dlsim command line as a function: main() (main.cc) calls it once; the command-line fuzz target
// (fuzz/cli_fuzzer.cc) calls it many times in one process.
//
//   char* argv[] = {"dlsim", "serve", "scenario.yaml", "--json"};
//   int code = dlsim::cli::Run(4, argv);
#ifndef DLSIM_TOOLS_CLI_H_
#define DLSIM_TOOLS_CLI_H_

namespace dlsim::cli {

// Builds the command line, parses argv, runs the command it names and returns the process exit code
// (app/command.h: 0 ran, 1 bad input, 2 usage, 3 infeasible, 130 interrupted). The command's result goes
// to std::cout once it has finished (nothing on an error or an interruption), progress and errors to
// stderr. Repeatable: no state is kept from one call to the next, except a Ctrl-C requested through
// core/cancel.h, which the caller owns (main() installs the SIGINT handler).
int Run(int argc, char** argv);

}  // namespace dlsim::cli

#endif  // DLSIM_TOOLS_CLI_H_
