// `dlsim validate --cross-validate` (see validate_cross.h).
#include "validate_cross.h"

#include <fmt/core.h>

#include <cmath>

#include "dlsim/core/cancel.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/cross_validation.h"

namespace dlsim::app {
namespace {

using validate::CrossValidationReport;
using validate::SetCrossValidation;

bool Wanted(const ValidateArgs& args, const std::string& name) {
  return args.only.empty() || name.find(args.only) != std::string::npos;
}

std::string Pct(double v) { return fmt::format("{:.2f}%", v); }

// Each row's label, measured value and its k-fold and leave-one-set-out predictions (null when the set
// was not left out): what scripts/fit-intervals.py derives the prediction intervals from.
nlohmann::ordered_json RowPredictions(const validate::SetCrossValidation& s) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < s.labels.size(); ++i)
    rows.push_back(
        {{"label", s.labels[i]},
         {"measured", s.measured[i]},
         {"kfold_predicted", s.kfold_predicted[i]},
         {"loso_predicted", i < s.loso_predicted.size() ? nlohmann::ordered_json(s.loso_predicted[i])
                                                        : nlohmann::ordered_json(nullptr)}});
  return rows;
}

nlohmann::ordered_json ReportJson(const ValidateArgs& args, const CrossValidationReport& r,
                                  const validate::CrossValidationOptions& o) {
  nlohmann::ordered_json j;
  j["folds"] = r.folds;
  j["seed"] = r.seed;
  j["kfold_refits"] = {{"start", "in-sample (loaded calibration)"},
                       {"iterations", o.kfold_fit.iterations},
                       {"f_tolerance", o.kfold_fit.f_tolerance}};
  j["leave_one_set_out_refits"] = {{"start",
                                    "dlsim-fit-training's start (kernel-level constants; the host time the "
                                    "best of 0, 0.5, 1 and 1.5 ms); uninformed constants at kernel level, an "
                                    "uninformed host time 0"},
                                   {"iterations_per_stage", o.loso_fit.iterations},
                                   {"f_tolerance", o.loso_fit.f_tolerance}};
  nlohmann::ordered_json sets = nlohmann::ordered_json::array();
  for (const SetCrossValidation& s : r.sets) {
    if (!Wanted(args, s.name)) continue;
    nlohmann::ordered_json e{{"name", s.name},
                             {"rows", s.rows},
                             {"folds", s.folds},
                             {"in_sample_mape_pct", s.in_sample_mape},
                             {"kfold_mape_pct", s.kfold_mape}};
    e["leave_one_set_out_mape_pct"] = s.loso_mape ? nlohmann::ordered_json(*s.loso_mape) : nullptr;
    e["row_predictions"] = RowPredictions(s);
    sets.push_back(e);
  }
  j["sets"] = sets;
  nlohmann::ordered_json fits = nlohmann::ordered_json::array();
  for (const auto& f : r.fits)
    fits.push_back({{"held_out", f.held_out},
                    {"objective", f.objective},
                    {"evaluations", f.evaluations},
                    {"converged", f.converged},
                    {"params", f.x}});
  j["fits"] = fits;
  return j;
}

void WriteTables(const ValidateArgs& args, const CrossValidationReport& r, std::ostream& out) {
  report::Table t(fmt::format(
      "Cross-validated step-time MAPE ({}-fold within sets, seed {}; leave one set out)", r.folds, r.seed));
  t.AddColumn("set", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("folds")
      .AddColumn("in-sample")
      .AddColumn("k-fold CV")
      .AddColumn("leave-one-set-out");
  for (const SetCrossValidation& s : r.sets)
    if (Wanted(args, s.name))
      t.AddRow({s.name, std::to_string(s.rows), std::to_string(s.folds), Pct(s.in_sample_mape),
                Pct(s.kfold_mape), s.loso_mape ? Pct(*s.loso_mape) : "-"});
  out << t;
  if (args.summary) return;
  report::Table fits(
      "Refits (k-fold: warm start at the loaded calibration; leave-one-set-out: dlsim-fit-training's fit "
      "from "
      "the kernel-level constants; 'kernel': the constant is left at its kernel-level value, or no host "
      "floor)");
  fits.AddColumn("held out", "", report::Align::kLeft).AddColumn("objective").AddColumn("evaluations");
  fits.AddColumn("converged", "", report::Align::kLeft).AddColumn("parameters", "", report::Align::kLeft);
  for (const auto& f : r.fits) {
    std::string x;
    for (double v : f.x) x += (x.empty() ? "" : " ") + (std::isnan(v) ? "kernel" : fmt::format("{:.4g}", v));
    fits.AddRow({f.held_out, fmt::format("{:.4f}", f.objective), std::to_string(f.evaluations),
                 f.converged ? "yes" : "no", x});
  }
  out << "\n" << fits;
}

}  // namespace

int RunCrossValidation(const ValidateArgs& args, const catalog::Catalogs& catalogs, std::ostream& out,
                       std::ostream& err) {
  if (args.cv_iterations < 1 || args.loso_iterations < 1)
    return ReportError("validate",
                       Error::InvalidArgument("--cv-iterations and --loso-iterations must be >= 1"), err);
  validate::CrossValidationOptions o;
  o.folds = args.folds;
  o.seed = args.seed;
  o.kfold_fit.iterations = args.cv_iterations;
  o.loso_fit.iterations = args.loso_iterations;
  o.cold_start = validate::TrainingFitStart(catalogs.compute);
  o.threads = args.threads;
  o.progress = args.progress;
  for (const std::string& name : validate::TrainingFitSets())  // --set: leave out only the sets shown
    if (Wanted(args, name)) o.loso_sets.push_back(name);
  auto report = validate::CrossValidate(validate::TrainingFitProblem(catalogs),
                                        validate::TrainingParamsOf(catalogs.training, catalogs.compute), o);
  if (!report.ok()) return ReportError("validate", report.error(), err);
  if (CancelRequested()) return ReportError("validate", CancelledError(), err);  // refits left undone
  bool any = false;
  for (const auto& s : report->sets) any = any || Wanted(args, s.name);
  if (!any) return ReportError("validate", Error::NotFound("no fit set matches '" + args.only + "'"), err);
  if (args.json) {
    out << JsonOutput(ReportJson(args, *report, o)) << "\n";
  } else {
    WriteTables(args, *report, out);
  }
  return kExitOk;
}

}  // namespace dlsim::app
