// `dlsim cluster`: read a cluster scenario, simulate it under its policy (or several, side by
// side), render the result.
//
//   app::ClusterArgs args{.file = "data/scenarios/cluster_philly_las.yaml", .compare = "fifo,las"};
//   int code = app::RunClusterCommand(args, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_CLUSTER_COMMAND_H_
#define DLSIM_APP_CLUSTER_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"
#include "dlsim/core/progress.h"

namespace dlsim::app {

struct ClusterArgs {
  std::string file;  // scenario YAML
  // The scenario's YAML given inline (the Python API: no file is written): when set, `file` only names it in
  // messages, and paths inside it resolve from the working directory.
  std::string text;
  bool json = false;       // one JSON object instead of the report
  bool records = false;    // with --json: the per-job records too
  bool check = false;      // only validate: print "ok: <summary>"
  std::string compare;     // "fifo,las,tiresias": run each policy on the same trace
  std::string policy;      // overrides policy.name
  std::string placement;   // overrides policy.placement
  std::string jobs_csv;    // per-job records as CSV, when not empty
  std::string series_csv;  // the utilisation time series as CSV, when not empty
  std::string trace_path;  // Perfetto trace: a track per node, a slice per job run
  std::string html_path;   // self-contained HTML report with charts (also with --compare)
  bool sweep = false;      // run the scenario's `sweep:` (policies x load scales x seeds)
  int threads = 0;         // sweep threads; 0: all cores
  ProgressFn progress;     // hears of each finished sweep point (from worker threads); may be empty
};

// Returns an ExitCode: 0 when the run completed (jobs that never fit are reported, not an
// error), 1 for bad input or an output that cannot be written.
int RunClusterCommand(const ClusterArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_CLUSTER_COMMAND_H_
