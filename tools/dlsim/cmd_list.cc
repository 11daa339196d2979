// dlsim list KIND: the policies of every registry (name and description).
#include <fmt/core.h>

#include <iostream>

#include "commands.h"
#include "dlsim/core/strings.h"
#include "dlsim/report/table.h"
#include "registry_kinds.h"

namespace dlsim::cli {

void AddListCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "list", "List the policies of a registry (dlsim list KIND; without KIND: the kinds)");
  auto kind = std::make_shared<std::string>();
  cmd->add_option("kind", *kind, "Registry kind, e.g. pipeline-schedule, data-policy, serving-scheduler");
  cmd->callback([kind] {
    auto kinds = RegistryKinds();
    std::vector<std::string> names;
    for (const auto& [k, f] : kinds) names.push_back(k);
    if (kind->empty()) {
      report::Table t("Registries (dlsim list KIND)");
      t.AddColumn("kind", "", report::Align::kLeft).AddColumn("entries");
      for (const auto& [k, f] : kinds) t.AddRow({k, std::to_string(f().size())});
      std::cout << t;
      return;
    }
    auto it = kinds.find(*kind);
    if (it == kinds.end()) Fail("list", UnknownNameMessage("registry kind", *kind, names), app::kExitUsage);
    report::Table t(*kind);
    t.AddColumn("name", "", report::Align::kLeft).AddColumn("description", "", report::Align::kLeft);
    for (const auto& [n, d] : it->second()) t.AddRow({n, d});
    std::cout << t;
  });
}

}  // namespace dlsim::cli
