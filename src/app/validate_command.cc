// `dlsim validate`: validate::RunValidation and its renderings (tables, JSON).
#include "dlsim/app/validate_command.h"

#include <fmt/core.h>

#include "dlsim/core/cancel.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/runs_file_sets.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/calibrate.h"
#include "dlsim/validate/validation.h"
#include "run_sinks.h"
#include "validate_cross.h"
#include "validate_html.h"

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
  e["signed_mean_error_pct"] = s.SignedMeanErrorPct();
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

void WriteTables(const std::vector<ValidationSet>& sets, bool summary_only, std::ostream& out) {
  report::Table summary("Validation summary (fit sets: in-sample; --cross-validate for held-out MAPE)");
  summary.AddColumn("set", "", report::Align::kLeft)
      .AddColumn("metric", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("MAPE")
      .AddColumn("signed mean")
      .AddColumn("max |error|")
      .AddColumn("CI bound");
  for (const auto& s : sets) {
    if (!summary_only) out << ValidationRowsTable(s) << "\n";
    summary.AddRow({s.name, s.metric, std::to_string(s.rows.size()), fmt::format("{:.2f}%", s.Mape()),
                    fmt::format("{:+.1f}%", s.SignedMeanErrorPct()),
                    fmt::format("{:.1f}%", s.MaxAbsErrorPct()),
                    s.bound_pct > 0 ? fmt::format("<= {:.0f}%", s.bound_pct) : "-"});
  }
  out << summary;
}

// --calibrate-with N: the held-out step-time sets, uncalibrated / calibrated on N rows / in-sample.
int RunCalibratedColumns(const ValidateArgs& args, const catalog::Catalogs& catalogs,
                         const std::vector<validate::ValidationSet>& sets, std::ostream& out) {
  report::Table t(
      fmt::format("Held-out step-time sets: shipped constants, calibrated on {} rows (error on the "
                  "rest), calibrated on all rows (in-sample)",
                  args.calibrate_with));
  t.AddColumn("set", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("uncalibrated")
      .AddColumn(fmt::format("calibrated ({})", args.calibrate_with))
      .AddColumn("in-sample")
      .AddColumn("fitted on the rows", "", report::Align::kLeft);
  for (const validate::ValidationSet& s : sets) {
    if (s.bound_pct > 0 || s.metric.rfind("step time", 0) != 0) continue;
    auto c = validate::CalibrateOnRows(s, catalogs, static_cast<size_t>(args.calibrate_with),
                                       std::max(1, args.threads));
    if (!c.ok()) {
      t.AddRow({s.name, std::to_string(s.rows.size()), fmt::format("{:.2f}%", s.Mape()), "-", "-",
                c.error().message});
      continue;
    }
    t.AddRow({s.name, std::to_string(c->rows), fmt::format("{:.2f}%", c->uncalibrated_mape),
              fmt::format("{:.2f}%", c->calibrated_mape), fmt::format("{:.2f}%", c->in_sample_mape),
              Join(c->constants, ", ")});
  }
  if (CancelRequested()) return kExitInterrupted;  // refits left undone: the table is not printed
  out << t;
  return kExitOk;
}

}  // namespace

int RunValidateCommand(const ValidateArgs& args, const CommonArgs& common, std::ostream& out,
                       std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("validate", catalogs.error(), err);
  if (!args.html_path.empty() && (args.cross_validate || args.calibrate_with > 0))  // refused, never ignored
    return ReportUsage(
        "validate",
        Error::InvalidArgument(std::string("--html: not written with ") +
                               (args.cross_validate ? "--cross-validate" : "--calibrate-with") +
                               " (it draws the sets' rows; run without it)"),
        err);
  if (args.cross_validate) return RunCrossValidation(args, *catalogs, out, err);
  auto sets = validate::RunValidation(*catalogs, args.only);
  if (!sets.ok()) return ReportError("validate", sets.error(), err);
  auto runs_sets = io::RunRunsFileSets(*catalogs, args.only);  // the sets kept as runs files
  if (!runs_sets.ok()) return ReportError("validate", runs_sets.error(), err);
  sets->insert(sets->end(), runs_sets->begin(), runs_sets->end());
  if (sets->empty())
    return ReportError("validate", Error::NotFound("no validation set matches '" + args.only + "'"), err);
  if (args.calibrate_with > 0) return RunCalibratedColumns(args, *catalogs, *sets, out);
  if (!args.html_path.empty()) {
    const Status w = WritePage(ValidateHtml(*sets), args.html_path, err);
    if (!w.ok()) return ReportError("validate", w.error(), err);
  }
  if (args.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& s : *sets) j.push_back(SetJson(s, !args.summary));
    out << JsonOutput(j) << "\n";
  } else {
    WriteTables(*sets, args.summary, out);
  }
  return kExitOk;
}

}  // namespace dlsim::app
