// `dlsim calibrate`: RUNS.csv -> validate::Calibrate -> report, and the calibration file.
#include "dlsim/app/calibrate_command.h"

#include <fmt/core.h>

#include <sstream>

#include "dlsim/core/cancel.h"
#include "dlsim/io/calibration_runs.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/training_calibration_loader.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/calibrate.h"

namespace dlsim::app {
namespace {

using validate::CalibrateResult;

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

const validate::StackConstant& SpecOf(const std::string& name) {
  for (const auto& s : validate::StackConstants())
    if (name == s.name) return s;
  return validate::StackConstants().front();
}

std::string Value(const std::string& name, double v) {
  const std::string unit = SpecOf(name).unit;
  return unit == "fraction" ? fmt::format("{:.4f}", v) : fmt::format("{:.1f} {}", v, unit);
}

void RenderConstants(const CalibrateResult& r, std::ostream& out) {
  report::Table t("Constants (" + r.architecture + ")");
  t.AddColumn("constant", "", report::Align::kLeft)
      .AddColumn("shipped")
      .AddColumn("fitted")
      .AddColumn("sensitivity", "%/+10%")
      .AddColumn("", "", report::Align::kLeft);
  for (const auto& c : r.candidates) {
    auto f = std::find_if(r.fitted.begin(), r.fitted.end(), [&](const auto& x) { return x.name == c.name; });
    t.AddRow({c.name, Value(c.name, c.start), f == r.fitted.end() ? "-" : Value(c.name, f->value),
              fmt::format("{:.2f}", 100 * c.sensitivity),
              f == r.fitted.end() ? "kept" : (f->at_bound ? "fitted, AT ITS BOUND" : "fitted")});
  }
  for (const auto& f : r.fitted)
    if (f.name == "memory")
      t.AddRow({"memory", Value("memory", f.start), Value("memory", f.value), "-",
                f.at_bound ? "fitted, AT ITS BOUND" : "fitted"});
  out << t;
}

void RenderRuns(const CalibrateResult& r, std::ostream& out) {
  report::Table t("\nStep time per run (s); held-out: fitted without the run");
  t.AddColumn("run", "", report::Align::kLeft)
      .AddColumn("measured")
      .AddColumn("shipped")
      .AddColumn("fitted")
      .AddColumn("held-out");
  for (const auto& run : r.runs)
    t.AddRow({run.label, FormatNumber(run.measured_s), FormatNumber(run.before_s), FormatNumber(run.fitted_s),
              FormatNumber(run.held_out_s)});
  t.AddSeparator();
  t.AddRow({"MAPE (%)", "", fmt::format("{:.1f}", r.mape_before), fmt::format("{:.1f}", r.mape_fitted),
            fmt::format("{:.1f}", r.mape_held_out)});
  out << t;
  if (r.memory_mape_before)
    out << fmt::format("\nPeak memory MAPE: shipped {:.1f}%, fitted {:.1f}%, held-out {:.1f}%\n",
                       *r.memory_mape_before, *r.memory_mape_fitted, *r.memory_mape_held_out);
}

nlohmann::ordered_json ResultJson(const CalibrateResult& r) {
  nlohmann::ordered_json j;
  j["architecture"] = r.architecture;
  for (const auto& c : r.fitted)
    j["fitted"].push_back(
        {{"constant", c.name}, {"shipped", c.start}, {"fitted", c.value}, {"at_bound", c.at_bound}});
  for (const auto& c : r.candidates) j["sensitivity"][c.name] = c.sensitivity;
  for (const auto& run : r.runs) {
    nlohmann::ordered_json row = {{"label", run.label},
                                  {"measured_s", run.measured_s},
                                  {"shipped_s", run.before_s},
                                  {"fitted_s", run.fitted_s},
                                  {"held_out_s", run.held_out_s}};
    if (run.memory_gib)
      row["memory_gib"] = {*run.memory_gib, *run.memory_before_gib, *run.memory_fitted_gib,
                           *run.memory_held_out_gib};
    j["runs"].push_back(row);
  }
  j["step_mape_pct"] = {{"shipped", r.mape_before}, {"fitted", r.mape_fitted}, {"held_out", r.mape_held_out}};
  if (r.memory_mape_before)
    j["memory_mape_pct"] = {{"shipped", *r.memory_mape_before},
                            {"fitted", *r.memory_mape_fitted},
                            {"held_out", *r.memory_mape_held_out}};
  j["simulated_runs"] = r.evaluations;
  return j;
}

// The calibration file: a header saying what it was fitted on and how well, then the constants.
std::string FileText(const CalibrateArgs& args, const CalibrateResult& r) {
  std::string h = "# Training calibration written by: dlsim calibrate " + args.file +
                  (args.fit.empty() ? "" : " --fit " + args.fit) + "\n";
  h += fmt::format(
      "# {} runs on {}; step-time MAPE: shipped {:.2f}%, fitted {:.2f}%, leave-one-run-out {:.2f}%\n",
      r.runs.size(), r.architecture, r.mape_before, r.mape_fitted, r.mape_held_out);
  if (r.memory_mape_before)
    h += fmt::format("# peak-memory MAPE: shipped {:.2f}%, fitted {:.2f}%, leave-one-run-out {:.2f}%\n",
                     *r.memory_mape_before, *r.memory_mape_fitted, *r.memory_mape_held_out);
  h += "# Use: dlsim --calibration FILE train|plan|validate ... (laid over data/calibration/training.yaml)\n";
  return io::FormatTrainingCalibration(r.calibration, h);
}

}  // namespace

int RunCalibrateCommand(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err) {
  if (!args.traces.empty() && !args.file.empty())
    return ReportUsage("calibrate", Error::InvalidArgument("give RUNS.csv or --trace files, not both"), err);
  if (!args.traces.empty()) return RunTraceCalibration(args, common, out, err);
  if (args.serve && !args.fit.empty())
    return ReportUsage("calibrate", Error::InvalidArgument("--serve fits the engine's CPU times; drop --fit"),
                       err);
  if (args.serve && !args.file.empty()) return RunServeCalibration(args, common, out, err);
  if (args.file.empty())
    return ReportUsage("calibrate",
                       Error::InvalidArgument("give RUNS.csv (measured runs) or --trace STEP.json.gz"), err);
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("calibrate", catalogs.error(), err);
  auto runs = io::LoadCalibrationRuns(args.file, *catalogs);
  if (!runs.ok()) return ReportError("calibrate", runs.error(), err);
  auto r = validate::Calibrate(*runs, *catalogs, {.constants = SplitList(args.fit), .threads = args.threads});
  if (!r.ok()) return ReportError("calibrate", r.error(), err);
  if (CancelRequested()) return ReportError("calibrate", CancelledError(), err);  // refits left undone
  return FinishCalibration(
      args, FileText(args, *r), ResultJson(*r),
      [&](std::ostream& o) {
        RenderConstants(*r, o);
        RenderRuns(*r, o);
      },
      out, err);
}

int FinishCalibration(const CalibrateArgs& args, const std::string& file_text,
                      const nlohmann::ordered_json& json, const std::function<void(std::ostream&)>& render,
                      std::ostream& out, std::ostream& err) {
  if (!args.output.empty()) {
    const Status written = WriteFileWhole(args.output, file_text, "the calibration file");
    if (!written.ok()) return ReportError("calibrate", written.error(), err);
  }
  if (args.json) {
    out << JsonOutput(json) << "\n";
    return kExitOk;
  }
  render(out);
  out << (args.output.empty()
              ? "\nNothing written (give -o FILE to write the calibration).\n"
              : "\nWrote " + args.output + ": use it with dlsim --calibration " + args.output +
                    (args.serve ? " serve|validate ...\n" : " train|plan|validate ...\n"));
  return kExitOk;
}

}  // namespace dlsim::app
