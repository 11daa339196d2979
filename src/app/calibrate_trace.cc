// `dlsim calibrate --trace`: profiled steps -> validate::CalibrateFromTraces -> report and calibration file.
#include <fmt/core.h>

#include <filesystem>

#include "dlsim/app/calibrate_command.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/io/training_calibration_loader.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/trace_calibrate.h"

namespace dlsim::app {
namespace {

using validate::TraceCalibrateResult;
using validate::TraceCategory;

std::string Ms(double ms) { return fmt::format("{:.2f}", ms); }
std::string FileName(const std::string& path) { return std::filesystem::path(path).filename().string(); }
std::string Us(const std::optional<double>& us) { return us ? fmt::format("{:.0f}", *us) : "-"; }

void RenderTraces(const TraceCalibrateResult& r, std::ostream& out) {
  report::Table t(fmt::format("GPU time by category (ms), {} ({})", r.gpu, r.architecture));
  t.AddColumn("trace", "", report::Align::kLeft);
  for (int c = 0; c < validate::kNumTraceCategories; ++c)
    t.AddColumn(std::string(validate::TraceCategoryName(static_cast<TraceCategory>(c))));
  t.AddColumn("busy").AddColumn("span").AddColumn("priced %");
  for (const auto& s : r.traces) {
    std::vector<std::string> row = {FileName(s.file)};
    for (double ms : s.category_ms) row.push_back(Ms(ms));
    row.push_back(Ms(s.gpu_busy_ms));
    row.push_back(Ms(s.gpu_span_ms));
    row.push_back(fmt::format("{:.0f}", 100 * s.priced_ms / std::max(1e-9, s.gpu_busy_ms)));
    t.AddRow(row);
  }
  out << t;
  report::Table h("\nHost time per layer (us): median gap between layers' attention calls");
  h.AddColumn("trace", "", report::Align::kLeft)
      .AddColumn("layers")
      .AddColumn("recompute", "", report::Align::kLeft)
      .AddColumn("forward")
      .AddColumn("backward")
      .AddColumn("GPU busy %");
  for (const auto& s : r.traces)
    h.AddRow({FileName(s.file), fmt::format("{}", s.host.layers), s.host.recompute ? "yes" : "no",
              Us(s.host.fwd_layer_us), Us(s.host.bwd_layer_us),
              fmt::format("{:.0f}", 100 * s.host.gpu_busy_fraction)});
  out << h;
}

void RenderFits(const TraceCalibrateResult& r, std::ostream& out) {
  report::Table t("\nConstants: dlsim's time for the traced calls (ms), shipped and fitted");
  t.AddColumn("constant", "", report::Align::kLeft)
      .AddColumn("calls")
      .AddColumn("measured")
      .AddColumn("shipped")
      .AddColumn("fitted")
      .AddColumn("value: shipped")
      .AddColumn("fitted")
      .AddColumn("per-call MAPE %: shipped")
      .AddColumn("fitted")
      .AddColumn("", "", report::Align::kLeft);
  for (const auto& f : r.fits)
    t.AddRow({f.constant, fmt::format("{}", f.calls), Ms(f.measured_ms), Ms(f.shipped_ms), Ms(f.fitted_ms),
              fmt::format("{:.4f}", f.start), fmt::format("{:.4f}", f.value),
              fmt::format("{:.1f}", f.mape_shipped), fmt::format("{:.1f}", f.mape_fitted),
              f.at_bound ? "AT ITS BOUND" : ""});
  out << t;
  if (!r.host_us) {
    out << "host: not measured (the GPU set the pace in every trace: launches blocked); kept\n";
    return;
  }
  out << fmt::format(
      "host: {:.1f} us per layer as traced (shipped {:.1f}): (forward + backward gap) / 3, / 4 with "
      "recomputation, "
      "mean over the traces that measured both; {}\n",
      *r.host_us, r.host_shipped_us,
      r.calibration.layer_host_time
          ? "written (--with-host)"
          : "not written: a traced step's host time includes the profiler's own overhead "
            "(give --with-host to write it)");
}

nlohmann::ordered_json ResultJson(const TraceCalibrateResult& r) {
  nlohmann::ordered_json j = {{"gpu", r.gpu}, {"architecture", r.architecture}};
  for (const auto& s : r.traces) {
    nlohmann::ordered_json cat;
    for (int c = 0; c < validate::kNumTraceCategories; ++c)
      cat[std::string(validate::TraceCategoryName(static_cast<TraceCategory>(c)))] = s.category_ms[c];
    nlohmann::ordered_json host = {{"layers", s.host.layers}, {"recompute", s.host.recompute}};
    host["fwd_layer_us"] = s.host.fwd_layer_us ? nlohmann::ordered_json(*s.host.fwd_layer_us) : nullptr;
    host["bwd_layer_us"] = s.host.bwd_layer_us ? nlohmann::ordered_json(*s.host.bwd_layer_us) : nullptr;
    j["traces"].push_back({{"file", s.file},
                           {"category_ms", cat},
                           {"priced_ms", s.priced_ms},
                           {"unlinked_ms", s.unlinked_ms},
                           {"gpu_busy_ms", s.gpu_busy_ms},
                           {"gpu_span_ms", s.gpu_span_ms},
                           {"host", host}});
  }
  for (const auto& f : r.fits)
    j["fits"].push_back({{"constant", f.constant},
                         {"calls", f.calls},
                         {"measured_ms", f.measured_ms},
                         {"shipped_ms", f.shipped_ms},
                         {"fitted_ms", f.fitted_ms},
                         {"shipped", f.start},
                         {"fitted", f.value},
                         {"mape_shipped_pct", f.mape_shipped},
                         {"mape_fitted_pct", f.mape_fitted},
                         {"at_bound", f.at_bound}});
  j["host_us"] = r.host_us ? nlohmann::ordered_json(*r.host_us) : nullptr;
  return j;
}

std::string FileText(const CalibrateArgs& args, const TraceCalibrateResult& r) {
  std::string h = "# Training calibration written by: dlsim calibrate";
  for (const auto& t : args.traces) h += " --trace " + t;
  h += args.gpu.empty() ? "\n" : " --gpu " + args.gpu + "\n";
  h += fmt::format(
      "# {} profiled step(s) on {}; each constant makes dlsim's time for the traced calls of its family "
      "match the measured time, each trace counted once\n",
      r.traces.size(), r.gpu);
  h += "# Use: dlsim --calibration FILE train|plan|validate ... (laid over data/calibration/training.yaml)\n";
  return io::FormatTrainingCalibration(r.calibration, h);
}

}  // namespace

int RunTraceCalibration(const CalibrateArgs& args, const CommonArgs& common, std::ostream& out,
                        std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("calibrate", catalogs.error(), err);
  std::vector<validate::ProfiledStep> steps;
  for (const auto& path : args.traces) {
    auto s = io::ReadKinetoTrace(path);
    if (!s.ok()) return ReportError("calibrate", s.error(), err);
    steps.push_back(std::move(*s));
  }
  auto gpu = validate::TraceGpu(steps, catalogs->hardware, args.gpu);
  if (!gpu.ok()) return ReportError("calibrate", gpu.error(), err);
  auto r = validate::CalibrateFromTraces(steps, *catalogs, **gpu);
  if (!r.ok()) return ReportError("calibrate", r.error(), err);
  if (!args.with_host) r->calibration.layer_host_time.reset();
  return FinishCalibration(
      args, FileText(args, *r), ResultJson(*r),
      [&](std::ostream& o) {
        RenderTraces(*r, o);
        RenderFits(*r, o);
      },
      out, err);
}

}  // namespace dlsim::app
