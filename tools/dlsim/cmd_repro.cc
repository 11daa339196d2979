// dlsim repro list | NAME [--json]: reproductions of published systems.
#include <fmt/core.h>

#include <iostream>

#include "commands.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::cli {
namespace {

struct ReproFlags {
  std::string name;
  bool json = false;
};

void Run(const GlobalOptions& global, const ReproFlags& flags) {
  repro::ReproRegistry reg("reproduction");
  repro::RegisterReproductions(reg);
  if (flags.name.empty() || flags.name == "list") {
    report::Table t("Reproductions (dlsim repro NAME)");
    t.AddColumn("name", "", report::Align::kLeft).AddColumn("system and claim", "", report::Align::kLeft);
    for (const auto* e : reg.Entries()) t.AddRow({e->name, e->description});
    std::cout << t;
    return;
  }
  auto entry = reg.Create(flags.name);
  if (!entry.ok()) Fail("repro", entry.error().message);
  auto catalogs = io::LoadCatalogs(global.catalog_files);
  if (!catalogs.ok()) Fail("repro", catalogs.error().message);
  auto compute = io::LoadDefaultComputeCalibration();
  if (!compute.ok()) Fail("repro", compute.error().message);
  auto network = io::LoadDefaultNetworkCalibration();
  if (!network.ok()) Fail("repro", network.error().message);
  repro::ReproEnv env{&*catalogs, &*compute, &*network};
  auto r = (*entry)->Run(env);
  if (!r.ok()) Fail("repro", r.error().message);
  if (flags.json) {
    nlohmann::ordered_json j;
    j["name"] = r->name;
    j["claim"] = r->claim;
    j["paper_ratio"] = r->paper_ratio;
    j["our_ratio"] = r->our_ratio;
    j["workload"] = r->workload;
    j["baseline"] = r->baseline;
    j["notes"] = r->notes;
    j["details"] = r->details;
    std::cout << report::DumpDeterministic(j) << "\n";
    return;
  }
  std::cout << fmt::format(
      "{}\n  claim:    {}\n  workload: {}\n  baseline: {}\n  paper:    {:.3g}x\n  dlsim:    {:.3g}x\n",
      r->name, r->claim, r->workload, r->baseline, r->paper_ratio, r->our_ratio);
  if (!r->notes.empty()) std::cout << "  notes:    " << r->notes << "\n";
  if (r->details.is_array() && !r->details.empty() && r->details[0].is_object()) {
    report::Table t("Details");
    std::vector<std::string> keys;
    for (auto it = r->details[0].begin(); it != r->details[0].end(); ++it) {
      keys.push_back(it.key());
      t.AddColumn(it.key());
    }
    for (const auto& row : r->details) {
      std::vector<std::string> cells;
      for (const auto& k : keys) {
        const auto& v = row.contains(k) ? row[k] : nlohmann::ordered_json();
        cells.push_back(v.is_string()   ? v.get<std::string>()
                        : v.is_number() ? FormatNumber(v.get<double>(), 4)
                                        : v.dump());
      }
      t.AddRow(cells);
    }
    std::cout << "\n" << t;
  }
}

}  // namespace

void AddReproCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("repro", "Reproduce a published system's headline claim (repro list)");
  auto flags = std::make_shared<ReproFlags>();
  cmd->add_option("name", flags->name, "Reproduction name, or 'list'");
  cmd->add_flag("--json", flags->json, "Print one JSON object");
  cmd->callback([&global, flags] { Run(global, *flags); });
}

}  // namespace dlsim::cli
