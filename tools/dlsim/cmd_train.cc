// dlsim train: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddTrainCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("train", "(not available yet: issue 3)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("train", "issue 3"); });
}

}  // namespace dlsim::cli
