// `dlsim validate`: validate::RunValidation and its renderings (tables, JSON).
#include "dlsim/app/validate_command.h"

#include <fmt/core.h>

#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/validation.h"
#include "validate_cross.h"

namespace dlsim::app {
namespace {

using validate::ValidationSet;

nlohmann::ordered_json SetJson(const ValidationSet& s, bool with_rows) {
  nlohmann::ordered_json e;
  e["name"] = s.name;
  e["metric"] = s.metric;
  e["source"] = s.source;
  e["mape_pct"] = s.Mape();
  e["max_abs_error_pct"] = s.MaxAbsErrorPct();
  e["bound_pct"] = s.bound_pct;
  e["rows"] = s.rows.size();
  if (!with_rows) return e;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& r : s.rows)
    rows.push_back({{"label", r.label},
                    {"measured", r.measured},
                    {"predicted", r.predicted},
                    {"error_pct", r.ErrorPct()},
                    {"feasible", r.feasible},
                    {"note", r.note}});
  e["detail"] = rows;
  return e;
}

report::Table RowsTable(const ValidationSet& s) {
  report::Table t(s.name + ": " + s.source);
  t.AddColumn("row", "", report::Align::kLeft)
      .AddColumn("measured")
      .AddColumn("predicted")
      .AddColumn("error")
      .AddColumn("note", "", report::Align::kLeft);
  for (const auto& r : s.rows)
    t.AddRow({r.label, FormatNumber(r.measured, 5), FormatNumber(r.predicted, 5),
              fmt::format("{:+.1f}%", r.ErrorPct()), r.note});
  return t;
}

void WriteTables(const std::vector<ValidationSet>& sets, bool summary_only, std::ostream& out) {
  report::Table summary("Validation summary (fit sets: in-sample; --cross-validate for held-out MAPE)");
  summary.AddColumn("set", "", report::Align::kLeft)
      .AddColumn("metric", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("MAPE")
      .AddColumn("max |error|")
      .AddColumn("CI bound");
  for (const auto& s : sets) {
    if (!summary_only) out << RowsTable(s) << "\n";
    summary.AddRow({s.name, s.metric, std::to_string(s.rows.size()), fmt::format("{:.2f}%", s.Mape()),
                    fmt::format("{:.1f}%", s.MaxAbsErrorPct()),
                    s.bound_pct > 0 ? fmt::format("<= {:.0f}%", s.bound_pct) : "-"});
  }
  out << summary;
}

}  // namespace

int RunValidateCommand(const ValidateArgs& args, const CommonArgs& common, std::ostream& out,
                       std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("validate", catalogs.error(), err);
  if (args.cross_validate) return RunCrossValidation(args, *catalogs, out, err);
  auto sets = validate::RunValidation(*catalogs, args.only);
  if (!sets.ok()) return ReportError("validate", sets.error(), err);
  if (sets->empty())
    return ReportError("validate", Error::NotFound("no validation set matches '" + args.only + "'"), err);
  if (args.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& s : *sets) j.push_back(SetJson(s, !args.summary));
    out << report::DumpDeterministic(j) << "\n";
  } else {
    WriteTables(*sets, args.summary, out);
  }
  return kExitOk;
}

}  // namespace dlsim::app
