// `dlsim train`: scenario -> train::Simulate -> terminal or JSON report (and, with --compare-trace, the
// profiled step beside it).
#include "dlsim/app/train_command.h"

#include <optional>

#include "dlsim/app/train_render.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/kineto_trace.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/report/json_report.h"
#include "dlsim/train/simulate.h"
#include "dlsim/validate/trace_compare.h"
#include "run_sinks.h"
#include "train_chakra.h"

namespace dlsim::app {
namespace {

Result<train::TrainOptions> LoadScenario(const TrainArgs& args, const catalog::Catalogs& catalogs) {
  if (args.use_default) {
    return io::ParseTrainScenario(embedded::DefaultTrainScenarioYaml(), "default_train.yaml (embedded)",
                                  catalogs.hardware, catalogs.models);
  }
  if (!args.text.empty())
    return io::ParseTrainScenario(args.text, args.file, catalogs.hardware, catalogs.models);
  return io::LoadTrainScenarioFile(args.file, catalogs.hardware, catalogs.models);
}

// The step as Chakra execution traces in `dir`, one file per GPU. Error: an infeasible step (nothing ran), a
// layout too large to export, an unwritable folder.
Status WriteChakra(const train::StepResult& r, const report::ExecutionGraphRecorder& graph,
                   const std::string& dir, std::ostream& err) {
  if (!r.feasible || graph.graph().processes.empty())
    return Error::InvalidArgument("--chakra " + dir + ": no step ran (" +
                                  (r.reason.empty() ? std::string("nothing was simulated") : r.reason) +
                                  "), so there is no trace to write");
  DLSIM_ASSIGN_OR_RETURN(
      report::ChakraLayout layout,
      ChakraLayoutOf(r.plan, static_cast<int>(graph.graph().processes.rbegin()->first + 1)));
  DLSIM_ASSIGN_OR_RETURN(report::ChakraSummary s, report::WriteChakraTraces(graph.graph(), layout, dir));
  err << s.Summary() << "\n";
  return Status::Ok();
}

// Simulates with the trace and the HTML recorder (if any) attached; the trace is finished
// before the result returns. Says on `err` where the trace went; writes the HTML report.
Result<train::StepResult> SimulateWithSinks(const train::TrainOptions& options,
                                            const catalog::Catalogs& catalogs, const TrainArgs& args,
                                            std::ostream& err) {
  DLSIM_ASSIGN_OR_RETURN(RunSinks sinks,
                         RunSinks::Open(args.trace_path, args.html_path, {options.model.name, "train"},
                                        {args.file, args.compare_trace}, !args.chakra_dir.empty()));
  DLSIM_ASSIGN_OR_RETURN(train::StepResult r, train::Simulate(options, catalogs, sinks.sink()));
  DLSIM_RETURN_IF_ERROR(sinks.Finish(err));
  if (!args.chakra_dir.empty()) DLSIM_RETURN_IF_ERROR(WriteChakra(r, *sinks.graph(), args.chakra_dir, err));
  if (args.html_path.empty()) return r;
  const Bytes capacity = (*catalogs.hardware.FindGpu(options.hardware.gpu))->hbm_capacity;
  DLSIM_RETURN_IF_ERROR(WritePage(TrainHtml(options, r, capacity, *sinks.recorder()), args.html_path, err));
  return r;
}

}  // namespace

int RunTrainCommand(const TrainArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  if (args.file.empty() == !args.use_default) {
    err << "dlsim train: give a scenario FILE or --default (exactly one); see 'dlsim train --help'\n";
    return kExitUsage;
  }
  Result<catalog::Catalogs> catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("train", catalogs.error(), err);
  Result<train::TrainOptions> options = LoadScenario(args, *catalogs);
  if (!options.ok()) return ReportError("train", options.error(), err);
  if (args.check) {
    out << "ok: " << io::SummarizeTrainOptions(*options) << "\n";
    return kExitOk;
  }
  std::optional<validate::ProfiledStep> profiled;
  if (!args.compare_trace.empty()) {
    Result<validate::ProfiledStep> s = io::ReadKinetoTrace(args.compare_trace);
    if (!s.ok()) return ReportError("train", s.error(), err);
    profiled = std::move(*s);
  }
  Result<train::StepResult> r = SimulateWithSinks(*options, *catalogs, args, err);
  if (!r.ok()) return ReportError("train", r.error(), err);
  const Bytes capacity = (*catalogs->hardware.FindGpu(options->hardware.gpu))->hbm_capacity;
  std::optional<validate::TraceComparison> compared;
  if (profiled) compared = validate::CompareWithTrace(*profiled, *options, *r, catalogs->hardware);
  if (args.json) {
    nlohmann::ordered_json j = TrainJson(*options, *r, capacity);
    if (compared) j["compare_trace"] = TraceComparisonJson(*compared);
    out << JsonOutput(j) << "\n";
  } else {
    WriteTrainReport(*options, *r, capacity, out);
    if (compared) WriteTraceComparison(*compared, out);
  }
  return ExitCodeOf(r->feasible);
}

}  // namespace dlsim::app
