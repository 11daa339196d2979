// `dlsim gnn`: scenario -> gnn::Simulate (or gnn::Compare) -> terminal or JSON report.
#include "dlsim/app/gnn_command.h"

#include "dlsim/app/gnn_render.h"
#include "dlsim/gnn/feature_cache.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/gnn_scenario.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/report/json_report.h"
#include "run_sinks.h"

namespace dlsim::app {
namespace {

int RunCompare(const GnnArgs& args, const io::GnnScenario& sc, const catalog::Catalogs& cat,
               std::ostream& out, std::ostream& err) {
  const std::vector<gnn::GnnVariant> variants = sc.compare.empty() ? gnn::DefaultVariants() : sc.compare;
  auto results = gnn::Compare(sc.options, variants, cat, args.progress);
  if (!results.ok()) return ReportError("gnn", results.error(), err);
  if (!args.html_path.empty()) {
    const Status w = WritePage(GnnCompareHtml(sc.options.name, variants, *results), args.html_path, err);
    if (!w.ok()) return ReportError("gnn", w.error(), err);
  }
  if (args.json) {
    out << JsonOutput(
        WithInputs(GnnCompareJson(variants, *results), io::ResolvedGnnScenario(sc.options, variants)));
  } else {
    out << FormatGnnCompare(variants, *results);
  }
  return kExitOk;
}

// Simulates with the sinks --trace and --html ask for, and writes the page.
Result<gnn::GnnResult> SimulateWithSinks(const GnnArgs& args, const gnn::GnnOptions& o,
                                         const catalog::Catalogs& cat, std::ostream& err) {
  const report::RunInfo run{o.name, "gnn", {{"seed", static_cast<int64_t>(o.seed)}}};
  DLSIM_ASSIGN_OR_RETURN(RunSinks sinks, RunSinks::Open(args.trace_path, args.html_path, run, {args.file}));
  DLSIM_ASSIGN_OR_RETURN(gnn::GnnResult r, gnn::Simulate(o, cat, sinks.sink(), args.progress));
  DLSIM_RETURN_IF_ERROR(sinks.Finish(err));
  if (args.html_path.empty()) return r;
  DLSIM_RETURN_IF_ERROR(WritePage(GnnHtml(o, r, *sinks.recorder()), args.html_path, err));
  return r;
}

}  // namespace

int RunGnnCommand(const GnnArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  if (args.compare && !args.trace_path.empty())  // one run's spans; refused, never silently ignored
    return ReportUsage("gnn",
                       Error::InvalidArgument("--trace: not written with --compare (one run's "
                                              "stages; --html draws every variant, or run each)"),
                       err);
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("gnn", catalogs.error(), err);
  auto sc = args.text.empty()
                ? io::LoadGnnScenarioFile(args.file, catalogs->hardware, io::BuiltinGnnNames())
                : io::ParseGnnScenario(args.text, args.file, catalogs->hardware, io::BuiltinGnnNames());
  if (!sc.ok()) return ReportError("gnn", sc.error(), err);
  if (args.check) {
    out << "ok: " << io::SummarizeGnnOptions(sc->options) << "\n";
    return kExitOk;
  }
  if (args.compare) return RunCompare(args, *sc, *catalogs, out, err);
  auto result = SimulateWithSinks(args, sc->options, *catalogs, err);
  if (!result.ok()) return ReportError("gnn", result.error(), err);
  if (args.json) {
    out << JsonOutput(WithInputs(GnnJson(*result), io::ResolvedGnnScenario(sc->options)));
  } else {
    out << FormatGnnReport(sc->options, *result);
  }
  return ExitCodeOf(result->feasible);
}

}  // namespace dlsim::app
