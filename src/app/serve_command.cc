// `dlsim serve`: scenario -> serve::Simulate (or FindCapacity) -> terminal or JSON report.
#include "dlsim/app/serve_command.h"

#include "dlsim/app/serve_render.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/trace_file.h"
#include "dlsim/serve/setup.h"

namespace dlsim::app {
namespace {

int RunCapacity(const ServeArgs& args, const serve::ServeOptions& options, const serve::ServeEnvironment& env,
                const serve::IterationCostModel& cost, std::ostream& out, std::ostream& err) {
  auto cap = serve::FindCapacity(options, cost, env.schedulers, env.routers, {.target = args.target});
  if (!cap.ok()) return ReportError("serve", cap.error(), err);
  if (args.json) {
    out << report::DumpDeterministic(CapacityJson(*cap, args.target));
  } else {
    out << FormatCapacityReport(options, *cap, args.target);
  }
  return cap->met ? kExitOk : kExitInfeasible;  // no rate meets the SLO: the report says why
}

// A serving trace holds a span per iteration (about 3 KB per request); say so before a big one.
constexpr int64_t kTraceWarnRequests = 100000;

// Says on `err` where the trace went.
Result<serve::ServeResult> SimulateWithTrace(const serve::ServeOptions& options,
                                             const serve::ServeEnvironment& env,
                                             const serve::IterationCostModel& cost, const ServeArgs& args,
                                             std::ostream& err) {
  const report::RunInfo run{options.name, "serve", {{"seed", static_cast<int64_t>(options.workload.seed)}}};
  DLSIM_ASSIGN_OR_RETURN(auto trace, report::TraceFile::Open(args.trace_path, run, {args.file}));
  if (trace && options.workload.requests > kTraceWarnRequests)
    err << "dlsim serve: warning: tracing " << options.workload.requests
        << " requests writes about 3 KB per request to " << args.trace_path << "\n";
  DLSIM_ASSIGN_OR_RETURN(serve::ServeResult r, serve::Simulate(options, cost, env.schedulers, env.routers,
                                                               trace ? trace->sink() : nullptr));
  if (!trace) return r;
  DLSIM_RETURN_IF_ERROR(trace->Finish());
  err << trace->Summary() << "\n";
  return r;
}

}  // namespace

int RunServeCommand(const ServeArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files);
  if (!catalogs.ok()) return ReportError("serve", catalogs.error(), err);
  auto env = serve::MakeServeEnvironment(catalogs->compute, catalogs->network);
  if (!env.ok()) return ReportError("serve", env.error(), err);
  const io::ServeNames names{(*env)->schedulers.Names(), (*env)->routers.Names()};
  auto options = io::LoadServeScenarioFile(args.file, catalogs->hardware, catalogs->models, names);
  if (!options.ok()) return ReportError("serve", options.error(), err);
  if (args.check) {
    out << "ok: " << io::SummarizeServeOptions(*options) << "\n";
    return kExitOk;
  }
  auto cost = serve::MakeCostModel(*options, **env);
  if (!cost.ok()) return ReportError("serve", cost.error(), err);
  if (args.capacity) return RunCapacity(args, *options, **env, **cost, out, err);
  auto result = SimulateWithTrace(*options, **env, **cost, args, err);
  if (!result.ok()) return ReportError("serve", result.error(), err);
  if (args.json) {
    out << report::DumpDeterministic(ServeJson(*result));
  } else {
    out << FormatServeReport(*options, *result);
  }
  return ExitCodeOf(result->feasible);
}

}  // namespace dlsim::app
