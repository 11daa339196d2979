// `dlsim calibrate --serve RUNS.csv`: measured serving runs -> validate::CalibrateServing -> report and a
// calibration file with a `serving_engines:` section.
#include <fmt/core.h>

#include "dlsim/app/calibrate_command.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serving_runs.h"
#include "dlsim/io/training_calibration_loader.h"
#include "dlsim/report/table.h"
#include "dlsim/serve/setup.h"
#include "dlsim/validate/serving_calibrate.h"

namespace dlsim::app {
namespace {

using validate::ServingCalibrateResult;

std::string Opt(const std::optional<double>& v, const char* format) {
  return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

void Render(const ServingCalibrateResult& r, std::ostream& out) {
  report::Table c(fmt::format("Engine {}: CPU time, profile and fitted", r.engine));
  c.AddColumn("constant", "", report::Align::kLeft).AddColumn("profile").AddColumn("fitted");
  c.AddRow({"step (us)", fmt::format("{:.1f}", r.step_before_us), Opt(r.fitted.step_us, "{:.1f}")});
  c.AddRow({"per request (us)", fmt::format("{:.2f}", r.per_request_before_us),
            Opt(r.fitted.per_request_us, "{:.2f}")});
  c.AddRow({"first-token path (us)", fmt::format("{:.1f}", r.first_token_before_us),
            Opt(r.fitted.first_token_us, "{:.1f}")});
  out << c;
  report::Table t("\nRuns: mean TPOT and TTFT (ms), measured, with the profile, fitted");
  t.AddColumn("run", "", report::Align::kLeft).AddColumn("TPOT").AddColumn("profile").AddColumn("fitted");
  t.AddColumn("TTFT").AddColumn("profile").AddColumn("fitted");
  for (const auto& f : r.runs)
    t.AddRow({f.label, fmt::format("{:.3f}", f.tpot_ms), fmt::format("{:.3f}", f.tpot_before_ms),
              fmt::format("{:.3f}", f.tpot_after_ms), Opt(f.ttft_ms, "{:.3f}"),
              fmt::format("{:.3f}", f.ttft_before_ms), fmt::format("{:.3f}", f.ttft_after_ms)});
  out << t;
  out << fmt::format("\nTPOT MAPE: profile {:.2f}%, fitted {:.2f}% (in-sample)", r.tpot_mape_before,
                     r.tpot_mape_after);
  if (r.ttft_mape_before)
    out << fmt::format("; TTFT MAPE: profile {:.2f}%, fitted {:.2f}%", *r.ttft_mape_before,
                       *r.ttft_mape_after);
  out << "\n";
}

nlohmann::ordered_json Json(const ServingCalibrateResult& r) {
  nlohmann::ordered_json j;
  j["engine"] = r.engine;
  j["profile"] = {{"step_us", r.step_before_us},
                  {"per_request_us", r.per_request_before_us},
                  {"first_token_us", r.first_token_before_us}};
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nullptr; };
  j["fitted"] = {{"step_us", opt(r.fitted.step_us)},
                 {"per_request_us", opt(r.fitted.per_request_us)},
                 {"first_token_us", opt(r.fitted.first_token_us)}};
  nlohmann::ordered_json runs = nlohmann::ordered_json::array();
  for (const auto& f : r.runs)
    runs.push_back({{"label", f.label},
                    {"tpot_ms", f.tpot_ms},
                    {"tpot_profile_ms", f.tpot_before_ms},
                    {"tpot_fitted_ms", f.tpot_after_ms},
                    {"ttft_ms", opt(f.ttft_ms)},
                    {"ttft_profile_ms", f.ttft_before_ms},
                    {"ttft_fitted_ms", f.ttft_after_ms}});
  j["runs"] = runs;
  j["tpot_mape"] = {{"profile", r.tpot_mape_before}, {"fitted", r.tpot_mape_after}};
  if (r.ttft_mape_before) j["ttft_mape"] = {{"profile", *r.ttft_mape_before}, {"fitted", *r.ttft_mape_after}};
  return j;
}

std::string FileText(const CalibrateArgs& args, const ServingCalibrateResult& r) {
  std::string h = "# Serving-engine calibration written by: dlsim calibrate --serve " + args.file + "\n";
  h += fmt::format("# {} runs on engine {}; TPOT MAPE: profile {:.2f}%, fitted {:.2f}% (in-sample)\n",
                   r.runs.size(), r.engine, r.tpot_mape_before, r.tpot_mape_after);
  h += "# Use: dlsim --calibration FILE serve ... (laid over the engine profile; engine_host: keys still "
       "win)\n";
  cost::TrainingCalibration cal;
  cal.serving_engines.push_back(r.fitted);
  return io::FormatTrainingCalibration(cal, h);
}

}  // namespace

int RunServeCalibration(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("calibrate", catalogs.error(), err);
  auto env = serve::MakeServeEnvironment(catalogs->compute, catalogs->network);
  if (!env.ok()) return ReportError("calibrate", env.error(), err);
  const io::ServeNames names{(*env)->schedulers.Names(), (*env)->routers.Names()};
  auto runs = io::LoadServingRuns(args.file, *catalogs, names);
  if (!runs.ok()) return ReportError("calibrate", runs.error(), err);
  auto r = validate::CalibrateServing(*runs, *catalogs);
  if (!r.ok()) return ReportError("calibrate", r.error(), err);
  return FinishCalibration(
      args, FileText(args, *r), Json(*r), [&](std::ostream& o) { Render(*r, o); }, out, err);
}

}  // namespace dlsim::app
