// dlsim catalog: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddCatalogCommands(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("catalog", "(not available yet: issue 2)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("catalog", "issue 2"); });
}

}  // namespace dlsim::cli
