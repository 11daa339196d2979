// `dlsim serve`: scenario -> serve::Simulate (or FindCapacity) -> terminal or JSON report.
#include "dlsim/app/serve_command.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include "dlsim/app/serve_render.h"
#include "dlsim/core/input_files.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/report/json_report.h"
#include "dlsim/serve/prediction_interval.h"
#include "dlsim/serve/setup.h"
#include "run_sinks.h"

namespace dlsim::app {
namespace {

int RunCapacity(const ServeArgs& args, const serve::ServeOptions& options, const serve::ServeEnvironment& env,
                const serve::IterationCostModel& cost, const cost::PredictionIntervals& intervals,
                std::ostream& out, std::ostream& err) {
  serve::CapacityOptions c;
  c.target = args.target;
  // One line per probe on a terminal (not --quiet): the search runs up to 34 simulations.
  if (args.progress)
    c.on_probe = [&err](int i, const serve::CapacityProbe& p) {
      err << fmt::format("capacity: probe {}: {} req/s per replica, SLO attainment {:.1f}%\n", i + 1,
                         FormatNumber(p.rate_per_replica, 4), 100 * p.slo_attainment);
    };
  auto cap = serve::FindCapacity(options, cost, env.schedulers, env.routers, c);
  if (!cap.ok()) return ReportError("serve", cap.error(), err);
  serve::AttachIntervals(options, intervals, cap->at_capacity);
  if (args.json) {
    out << JsonOutput(WithInputs(CapacityJson(*cap, args.target), io::ResolvedServeScenario(options)));
  } else {
    out << FormatCapacityReport(options, *cap, args.target);
  }
  return cap->met ? kExitOk : kExitInfeasible;  // no rate meets the SLO: the report says why
}

// A serving trace holds a span per iteration (about 3 KB per request); say so before a big one.
constexpr int64_t kTraceWarnRequests = 100000;

// Writes DIR/requests.csv. Error: the folder or the file cannot be written.
Status WriteCsv(const std::string& dir, const serve::ServeResult& r, std::ostream& err) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = (std::filesystem::path(dir) / "requests.csv").string();
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput("--csv", path));
  std::ofstream f(path, std::ios::binary);
  if (ec || !f) return Error::InvalidArgument("--csv " + dir + ": cannot write " + path);
  WriteRequestsCsv(r.records, f);
  f.close();
  if (!f) return Error::InvalidArgument("--csv " + dir + ": writing " + path + " failed");
  err << "csv: " << path << " (" << r.records.size() << " requests)\n";
  return Status::Ok();
}

// Simulates with the trace and the HTML recorder (if any) attached; says on `err` where the
// trace went; attaches the intervals; writes the HTML report and the CSV folder when asked.
Result<serve::ServeResult> SimulateWithSinks(serve::ServeOptions options, const serve::ServeEnvironment& env,
                                             const serve::IterationCostModel& cost,
                                             const cost::PredictionIntervals& intervals,
                                             const ServeArgs& args, std::ostream& err) {
  const report::RunInfo run{options.name, "serve", {{"seed", static_cast<int64_t>(options.workload.seed)}}};
  DLSIM_ASSIGN_OR_RETURN(RunSinks sinks, RunSinks::Open(args.trace_path, args.html_path, run, {args.file}));
  if (!args.trace_path.empty() && options.workload.requests > kTraceWarnRequests)
    err << "dlsim serve: warning: tracing " << options.workload.requests
        << " requests writes about 3 KB per request to " << args.trace_path << "\n";
  options.keep_records = !args.html_path.empty() || !args.csv_dir.empty();
  DLSIM_ASSIGN_OR_RETURN(serve::ServeResult r, serve::Simulate(options, cost, env.schedulers, env.routers,
                                                               sinks.sink(), args.progress));
  DLSIM_RETURN_IF_ERROR(sinks.Finish(err));
  serve::AttachIntervals(options, intervals, r);
  if (!args.csv_dir.empty()) DLSIM_RETURN_IF_ERROR(WriteCsv(args.csv_dir, r, err));
  if (!args.html_path.empty()) {
    DLSIM_RETURN_IF_ERROR(WritePage(ServeHtml(options, r, *sinks.recorder()), args.html_path, err));
  }
  return r;
}

}  // namespace

int RunServeCommand(const ServeArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  if (args.capacity) {  // a capacity at a target of 0 (or NaN, or above 1) is no capacity
    if (Status st = CheckArgument("target", args.target, 1e-6, 1); !st.ok())
      return ReportUsage("serve", st, err);
  }
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("serve", catalogs.error(), err);
  auto env = serve::MakeServeEnvironment(catalogs->compute, catalogs->network);
  if (!env.ok()) return ReportError("serve", env.error(), err);
  const io::ServeNames names{(*env)->schedulers.Names(), (*env)->routers.Names()};
  auto options =
      args.text.empty()
          ? io::LoadServeScenarioFile(args.file, catalogs->hardware, catalogs->models, names)
          : io::ParseServeScenario(args.text, args.file, catalogs->hardware, catalogs->models, names);
  if (!options.ok()) return ReportError("serve", options.error(), err);
  options->engine_calibrations = catalogs->training.serving_engines;  // `--calibration` files'
  if (args.check) {
    out << "ok: " << io::SummarizeServeOptions(*options) << "\n";
    return kExitOk;
  }
  auto cost = serve::MakeCostModel(*options, **env);
  if (!cost.ok()) return ReportError("serve", cost.error(), err);
  if (args.capacity && !(args.html_path.empty() && args.csv_dir.empty())) {
    err << "dlsim serve: --html and --csv describe one run, not a --capacity search; drop one\n";
    return kExitUsage;
  }
  if (args.capacity) return RunCapacity(args, *options, **env, **cost, catalogs->intervals, out, err);
  auto result = SimulateWithSinks(*options, **env, **cost, catalogs->intervals, args, err);
  if (!result.ok()) return ReportError("serve", result.error(), err);
  if (args.json) {
    out << JsonOutput(WithInputs(ServeJson(*result), io::ResolvedServeScenario(*options)));
  } else {
    out << FormatServeReport(*options, *result);
  }
  return ExitCodeOf(result->feasible);
}

}  // namespace dlsim::app
