// dlsim validate: predicted vs measured for every calibration set, with MAPE per set.
#include <fmt/core.h>

#include <iostream>

#include "commands.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/training_calibration_loader.h"
#include "dlsim/report/format.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/validation.h"

namespace dlsim::cli {
namespace {

struct ValidateFlags {
  std::string only;
  bool json = false;
  bool summary = false;
};

void Run(const GlobalOptions& global, const ValidateFlags& flags) {
  auto catalogs = io::LoadCatalogs(global.catalog_files);
  if (!catalogs.ok()) Fail("validate", catalogs.error().message);
  auto compute = io::LoadDefaultComputeCalibration();
  if (!compute.ok()) Fail("validate", compute.error().message);
  auto network = io::LoadDefaultNetworkCalibration();
  if (!network.ok()) Fail("validate", network.error().message);
  auto training = io::LoadDefaultTrainingCalibration();
  if (!training.ok()) Fail("validate", training.error().message);
  validate::Calibrations cal{*compute, *network, *training};
  auto sets = validate::RunValidation(*catalogs, cal, flags.only);
  if (!sets.ok()) Fail("validate", sets.error().message);
  if (sets->empty()) Fail("validate", "no validation set matches '" + flags.only + "'");
  if (flags.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& s : *sets) {
      nlohmann::ordered_json e;
      e["name"] = s.name;
      e["metric"] = s.metric;
      e["source"] = s.source;
      e["mape_pct"] = s.Mape();
      e["max_abs_error_pct"] = s.MaxAbsErrorPct();
      e["bound_pct"] = s.bound_pct;
      e["rows"] = s.rows.size();
      if (!flags.summary) {
        nlohmann::ordered_json rows = nlohmann::ordered_json::array();
        for (const auto& r : s.rows)
          rows.push_back({{"label", r.label},
                          {"measured", r.measured},
                          {"predicted", r.predicted},
                          {"error_pct", r.ErrorPct()},
                          {"feasible", r.feasible},
                          {"note", r.note}});
        e["detail"] = rows;
      }
      j.push_back(e);
    }
    std::cout << report::DumpDeterministic(j) << "\n";
    return;
  }
  report::Table summary("Validation summary");
  summary.AddColumn("set", "", report::Align::kLeft)
      .AddColumn("metric", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("MAPE")
      .AddColumn("max |error|")
      .AddColumn("CI bound");
  for (const auto& s : *sets) {
    if (!flags.summary) {
      report::Table t(s.name + ": " + s.source);
      t.AddColumn("row", "", report::Align::kLeft)
          .AddColumn("measured")
          .AddColumn("predicted")
          .AddColumn("error")
          .AddColumn("note", "", report::Align::kLeft);
      for (const auto& r : s.rows)
        t.AddRow({r.label, FormatNumber(r.measured, 5), FormatNumber(r.predicted, 5),
                  fmt::format("{:+.1f}%", r.ErrorPct()), r.note});
      std::cout << t << "\n";
    }
    summary.AddRow({s.name, s.metric, std::to_string(s.rows.size()), fmt::format("{:.2f}%", s.Mape()),
                    fmt::format("{:.1f}%", s.MaxAbsErrorPct()),
                    s.bound_pct > 0 ? fmt::format("<= {:.0f}%", s.bound_pct) : "-"});
  }
  std::cout << summary;
}

}  // namespace

void AddValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd =
      app.add_subcommand("validate", "Compare predictions with published measurements (MAPE per set)");
  auto flags = std::make_shared<ValidateFlags>();
  cmd->add_option("--set", flags->only, "Only sets whose name contains this text");
  cmd->add_flag("--json", flags->json, "Print JSON");
  cmd->add_flag("--summary", flags->summary, "Only the per-set summary");
  cmd->callback([&global, flags] { Run(global, *flags); });
}

}  // namespace dlsim::cli
