// dlsim serve: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddServeCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("serve", "(not available yet: issue 6)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("serve", "issue 6"); });
}

}  // namespace dlsim::cli
