// dlsim list KIND: the policies of every registry (name and description).
#include <fmt/core.h>

#include <functional>
#include <iostream>
#include <map>

#include "commands.h"
#include "dlsim/core/strings.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/net/collective.h"
#include "dlsim/report/table.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/train/pipeline_schedule.h"
#include "registry_kinds.h"

namespace dlsim::cli {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

template <typename Reg>
Entries Collect(const Reg& reg) {
  Entries out;
  for (const auto* e : reg.Entries()) out.emplace_back(e->name, e->description);
  return out;
}

std::map<std::string, std::function<Entries()>> Kinds() {
  std::map<std::string, std::function<Entries()>> kinds;
  kinds["pipeline-schedule"] = [] {
    train::PipelineScheduleRegistry reg("pipeline-schedule");
    train::RegisterPipelineSchedules(reg);
    return Collect(reg);
  };
  kinds["compute-model"] = [] {
    cost::ComputeModelRegistry reg("compute-model");
    cost::RegisterComputeModels(reg);
    return Collect(reg);
  };
  kinds["collective-model"] = [] {
    net::CollectiveRegistry reg("collective-model");
    net::RegisterCollectiveModels(reg);
    return Collect(reg);
  };
  kinds["reproduction"] = [] {
    repro::ReproRegistry reg("reproduction");
    repro::RegisterReproductions(reg);
    return Collect(reg);
  };
  AddModuleKinds(kinds);
  return kinds;
}

}  // namespace

void AddListCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "list", "List the policies of a registry (dlsim list KIND; without KIND: the kinds)");
  auto kind = std::make_shared<std::string>();
  cmd->add_option("kind", *kind, "Registry kind, e.g. pipeline-schedule, data-policy, serving-scheduler");
  cmd->callback([kind] {
    auto kinds = Kinds();
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
    if (it == kinds.end()) Fail("list", UnknownNameMessage("registry kind", *kind, names));
    report::Table t(*kind);
    t.AddColumn("name", "", report::Align::kLeft).AddColumn("description", "", report::Align::kLeft);
    for (const auto& [n, d] : it->second()) t.AddRow({n, d});
    std::cout << t;
  });
}

}  // namespace dlsim::cli
