// `dlsim cluster`: scenario -> cluster::Simulate (one policy, or each of --compare) -> report.
#include "dlsim/app/cluster_command.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "dlsim/app/cluster_render.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/core/cancel.h"
#include "dlsim/core/input_files.h"
#include "dlsim/core/mpi_work_map.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cluster_scenario.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/trace_file.h"
#include "run_sinks.h"

namespace dlsim::app {
namespace {

// A Perfetto trace holds a track per node: beyond this many nodes it is unreadable and large.
constexpr size_t kMaxTraceNodes = 4096;

Result<cluster::ClusterResult> SimulateWithTrace(const cluster::ClusterOptions& o,
                                                 const catalog::Catalogs& cat, const ClusterArgs& args,
                                                 std::ostream& err) {
  if (!args.trace_path.empty() && o.cluster.nodes().size() > kMaxTraceNodes)
    return Error::InvalidArgument(
        fmt::format("--trace: {} nodes; a trace is for clusters of at most {} nodes",
                    o.cluster.nodes().size(), kMaxTraceNodes));
  const report::RunInfo run{args.file, "cluster", {{"seed", static_cast<int64_t>(o.seed)}}};
  DLSIM_ASSIGN_OR_RETURN(auto trace, report::TraceFile::Open(args.trace_path, run, {args.file}));
  DLSIM_ASSIGN_OR_RETURN(cluster::ClusterResult r,
                         cluster::Simulate(o, cat, trace ? trace->sink() : nullptr));
  if (!trace) return r;
  DLSIM_RETURN_IF_ERROR(trace->Finish());
  err << trace->Summary() << "\n";
  return r;
}

// Writes `write(stream)` to `path`; an unwritable path is an error naming it.
template <typename F>
Status WriteFile(const std::string& flag, const std::string& path, F write) {
  if (path.empty()) return Status::Ok();
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput(flag, path));
  std::ofstream f(path, std::ios::binary);
  if (f) write(f);
  f.flush();
  if (!f) return Error::InvalidArgument("cannot write '" + path + "'");
  return Status::Ok();
}

std::vector<std::string> SplitList(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    if (comma > pos) out.push_back(s.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return out;
}

int RunCompare(const ClusterArgs& args, cluster::ClusterOptions o, const catalog::Catalogs& cat,
               std::ostream& out, std::ostream& err) {
  std::vector<cluster::ClusterResult> results;
  std::vector<nlohmann::ordered_json> inputs;  // each policy's run
  o.policy = args.compare;                     // the header names the policies compared
  const std::string header = "cluster: " + io::SummarizeClusterOptions(o) + "\n";
  for (const std::string& policy : SplitList(args.compare)) {
    if (!cluster::BuiltinPolicies().Contains(policy))
      return ReportError(
          "cluster",
          Error::InvalidArgument("--compare: " + UnknownNameMessage("cluster policy", policy,
                                                                    cluster::BuiltinPolicies().Names())),
          err);
    o.policy = policy;
    auto r = cluster::Simulate(o, cat, nullptr);
    if (!r.ok()) return ReportError("cluster", r.error(), err);
    results.push_back(std::move(*r));
    inputs.push_back(io::ResolvedClusterScenario(o));
  }
  if (!args.html_path.empty()) {
    Status w = WritePage(ClusterHtml(args.file, results), args.html_path, err);
    if (!w.ok()) return ReportError("cluster", w.error(), err);
  }
  if (args.json) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (size_t i = 0; i < results.size(); ++i)
      j.push_back(WithInputs(ClusterJson(results[i], false), inputs[i]));
    out << JsonOutput(j);
  } else {
    out << header << FormatClusterComparison(results);
  }
  return kExitOk;
}

int RunSweep(const ClusterArgs& args, const cluster::ClusterOptions& o, const catalog::Catalogs& cat,
             std::ostream& out, std::ostream& err) {
  auto spec = io::LoadClusterSweep(args.file, o);
  if (!spec.ok()) return ReportError("cluster", spec.error(), err);
  // Under mpirun every rank runs this with the same inputs; rank 0 prints (core/mpi_work_map.h).
  std::unique_ptr<WorkMap> map = MakeDefaultWorkMap(args.threads);
  if (LaunchedByMpi() && map->IsPrimary()) err << "cluster sweep: on " << map->Describe() << "\n";
  auto rows = cluster::Sweep(o, cat, *spec, *map, map->IsPrimary() ? args.progress : ProgressFn{});
  if (rows.ok() && CancelRequested()) rows = CancelledError();  // points left unrun
  std::ostringstream unheard;  // the other ranks exit with the same code, silently
  if (!rows.ok()) return ReportError("cluster", rows.error(), map->IsPrimary() ? err : unheard);
  if (!map->IsPrimary()) return kExitOk;
  if (args.json)
    out << JsonOutput(WithInputs(ClusterSweepJson(*spec, *rows), io::ResolvedClusterScenario(o)));
  else
    out << "cluster: " << io::SummarizeClusterOptions(o) << "\n" << FormatClusterSweep(*rows);
  return kExitOk;
}

// The output options a mode does not write are refused, never silently ignored (issue 35): --compare writes
// only
// --html (one page, every policy), --sweep writes none (its rows are the output).
Status CheckOutputsOfMode(const ClusterArgs& args) {
  std::vector<std::string> ignored;
  const bool compare = !args.compare.empty();
  if (args.sweep || compare) {
    if (!args.jobs_csv.empty()) ignored.push_back("--csv");
    if (!args.series_csv.empty()) ignored.push_back("--series");
    if (!args.trace_path.empty()) ignored.push_back("--trace");
  }
  if (args.sweep && !args.html_path.empty()) ignored.push_back("--html");
  if (ignored.empty()) return Status::Ok();
  return Error::InvalidArgument(
      Join(ignored, ", ") + ": not written with " + (args.sweep ? "--sweep" : "--compare") +
      (args.sweep ? " (its rows, printed or --json, are the output)"
                  : " (one run's records; --html draws every policy, or run each policy)"));
}

}  // namespace

int RunClusterCommand(const ClusterArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err) {
  for (const Status& st : {CheckListArgument("compare", args.compare),
                           CheckArgument("threads", args.threads, 0, 4096), CheckOutputsOfMode(args)})
    if (!st.ok()) return ReportUsage("cluster", st, err);
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("cluster", catalogs.error(), err);
  auto options = args.text.empty() ? io::LoadClusterScenarioFile(args.file, *catalogs)
                                   : io::ParseClusterScenario(args.text, args.file, *catalogs);
  if (!options.ok()) return ReportError("cluster", options.error(), err);
  if (!args.policy.empty()) options->policy = args.policy;
  if (!args.placement.empty()) options->placement = args.placement;
  if (args.check) {
    out << "ok: " << io::SummarizeClusterOptions(*options) << "\n";
    return kExitOk;
  }
  if (args.sweep) return RunSweep(args, *options, *catalogs, out, err);
  if (!args.compare.empty()) return RunCompare(args, std::move(*options), *catalogs, out, err);
  auto result = SimulateWithTrace(*options, *catalogs, args, err);
  if (!result.ok()) return ReportError("cluster", result.error(), err);
  Status w = WriteFile("--csv", args.jobs_csv, [&](std::ostream& f) { WriteJobsCsv(*result, f); });
  if (w.ok())
    w = WriteFile("--series", args.series_csv, [&](std::ostream& f) { WriteSeriesCsv(*result, f); });
  if (w.ok() && !args.html_path.empty())
    w = WritePage(ClusterHtml(args.file, {*result}), args.html_path, err);
  if (!w.ok()) return ReportError("cluster", w.error(), err);
  if (args.json)
    out << JsonOutput(WithInputs(ClusterJson(*result, args.records), io::ResolvedClusterScenario(*options)));
  else
    out << FormatClusterReport(*options, *result);
  // No job could run: the figures above are not results. Say so and exit as infeasible.
  if (result->summary.completed == 0) {
    err << "dlsim cluster: none of the " << result->summary.jobs
        << " jobs could run on this cluster (see 'never ran')\n";
    return kExitInfeasible;
  }
  return kExitOk;
}

}  // namespace dlsim::app
