// dlsim validate: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("validate", "(not available yet: issue 3)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("validate", "issue 3"); });
}

}  // namespace dlsim::cli
