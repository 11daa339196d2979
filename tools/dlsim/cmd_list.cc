// dlsim list: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddListCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("list", "(not available yet: issue 2)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("list", "issue 2"); });
}

}  // namespace dlsim::cli
