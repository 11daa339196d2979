// dlsim plan: placeholder until its issue lands.
#include "commands.h"

namespace dlsim::cli {

void AddPlanCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("plan", "(not available yet: issue 5)");
  cmd->allow_extras();
  cmd->callback([] { NotYetAvailable("plan", "issue 5"); });
}

}  // namespace dlsim::cli
