// `dlsim repro list | NAME`: run a reproduction of a published system and set our ratio beside
// the paper's (docs/reproductions.md).
//
//   int code = app::RunReproCommand({.name = "select-n"}, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_REPRO_COMMAND_H_
#define DLSIM_APP_REPRO_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct ReproArgs {
  std::string name;        // a reproduction, or "list" / empty for the list
  bool json = false;       // one JSON object
  std::string html_path;   // an HTML page of one reproduction (not with list or check)
  std::string graphs_dir;  // edge lists a graph reproduction adds (--graphs DIR); empty: none
  // --check: run every reproduction and compare its verdict with the one docs/reproductions.md
  // records ("## Verdicts"); `expect_file` reads that table from a file instead of the copy
  // compiled in.
  bool check = false;
  std::string expect_file;
};

// Returns kExitOk, or kExitError for an unknown name or a reproduction that fails. With --check:
// kExitOk when every reproduction's verdict is the recorded one, kExitError when one differs (in
// either direction: the docs must say what the code does), fails, or is missing from the table.
int RunReproCommand(const ReproArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_REPRO_COMMAND_H_
