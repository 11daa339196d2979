// `dlsim plan`: scenario -> plan::RunPlanner -> report, JSON, CSV, best-layout scenario.
#include "dlsim/app/plan_command.h"

#include <fmt/core.h>

#include <fstream>
#include <sstream>

#include "dlsim/app/plan_render.h"
#include "dlsim/core/cancel.h"
#include "dlsim/core/input_files.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/plan/backend.h"
#include "dlsim/plan/planner.h"
#include "dlsim/report/json_report.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/prediction_interval.h"
#include "run_sinks.h"

namespace dlsim::app {
namespace {

// The stream is closed before it is checked, so a full disk (/dev/full) is an error, not exit 0.
Status WriteFile(const std::string& flag, const std::string& path, const std::string& text) {
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput(flag, path));
  std::ofstream f(path);
  f << text;
  f.close();
  if (!f) return Error::InvalidArgument("cannot write " + path);
  return Status::Ok();
}

// The CSV, HTML and best-layout files the flags ask for.
Status WriteFiles(const PlanArgs& args, const train::TrainOptions& base, const plan::PlanResult& r,
                  std::ostream& err) {
  if (!args.html_path.empty()) DLSIM_RETURN_IF_ERROR(WritePage(PlanHtml(base, r), args.html_path, err));
  if (!args.csv_path.empty()) {
    std::ostringstream csv;
    WritePlanCsv(r, csv);
    DLSIM_RETURN_IF_ERROR(WriteFile("--csv", args.csv_path, csv.str()));
  }
  if (args.best_path.empty()) return Status::Ok();
  const plan::EvaluatedCandidate* best = r.Best();
  if (best == nullptr) return Error::Infeasible("no feasible configuration to write to " + args.best_path);
  const std::string header =
      fmt::format("Best layout found by 'dlsim plan {}' ({}: {:.6g}).\nRun it with: dlsim train {}",
                  args.file, plan::ObjectiveName(r.objective), best->objective, args.best_path);
  return WriteFile("--write-best", args.best_path,
                   io::FormatTrainScenarioYaml(plan::ApplyCandidate(base, best->candidate), header));
}

}  // namespace

int RunPlanCommand(const PlanArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  for (const Status& st :
       {CheckArgument("threads", args.threads, 0, 4096), CheckArgument("top", args.top, 0, 100000)})
    if (!st.ok()) return ReportUsage("plan", st, err);
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("plan", catalogs.error(), err);
  auto scenario = args.text.empty()
                      ? io::LoadPlanScenarioFile(args.file, catalogs->hardware, catalogs->models)
                      : io::ParsePlanScenario(args.text, args.file, catalogs->hardware, catalogs->models);
  if (!scenario.ok()) return ReportError("plan", scenario.error(), err);
  // Before the search, which may take minutes: no output may overwrite an input.
  for (const auto& [flag, path] :
       {std::pair{"--csv", args.csv_path}, {"--write-best", args.best_path}, {"--html", args.html_path}})
    if (Status st = CheckNotAnInput(flag, path); !st.ok()) return ReportError("plan", st.error(), err);
  plan::PlanOptions options = scenario->options;
  if (args.top > 0) options.top_k = args.top;
  if (args.no_dominance) options.dominance = false;
  const train::TrainOptions& base = scenario->base;
  const plan::ContextFactory make_context = [&] { return train::MakeStepContext(base, *catalogs); };
  std::unique_ptr<plan::Backend> backend = plan::MakeDefaultBackend(args.threads);
  const bool primary = backend->IsPrimary();
  auto result = plan::RunPlanner(base, options, make_context, *backend,
                                 primary ? plan::ProgressFn(args.progress) : plan::ProgressFn());
  if (!result.ok()) return ReportError("plan", result.error(), err);
  if (CancelRequested()) return ReportError("plan", CancelledError(), err);  // candidates left unpriced
  if (!primary) return kExitOk;
  if (auto gpu = catalogs->hardware.FindGpu(base.hardware.gpu); gpu.ok())
    result->unit_interval =
        train::IntervalOf(base, (*gpu)->architecture, 1.0, catalogs->intervals, catalogs->training);
  result->unit_memory_interval = train::MemoryIntervalOf(1.0, catalogs->intervals);
  if (Status st = WriteFiles(args, base, *result, err); !st.ok()) return ReportError("plan", st.error(), err);
  if (args.json) {
    out << JsonOutput(
        WithInputs(PlanJson(*result, options, /*all=*/true), io::ResolvedPlanScenario(base, options)));
  } else {
    WritePlanReport(base, options, *result, out);
  }
  return ExitCodeOf(result->Best() != nullptr);
}

}  // namespace dlsim::app
