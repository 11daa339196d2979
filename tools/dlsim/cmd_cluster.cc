// dlsim cluster FILE [--compare fifo,las] [--policy P] [--placement P] [--json [--records]]
//                    [--csv JOBS.csv] [--series UTIL.csv] [--trace OUT.json] [--check]
//                    [--html OUT.html] [--sweep [--threads N] [--quiet]]
// Argument parsing only; the command is app::RunClusterCommand (docs/cluster.md).
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/cluster_command.h"
#include "progress.h"

namespace dlsim::cli {

void AddClusterCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "cluster",
      "Simulate a shared GPU cluster over a job trace: JCT, queuing, utilisation (docs/cluster.md)");
  auto args = std::make_shared<app::ClusterArgs>();
  cmd->add_option("FILE", args->file, "Cluster scenario (YAML)")->required();
  cmd->add_option("--compare", args->compare,
                  "Run each policy (comma-separated) on the same trace, side by side");
  cmd->add_option("--policy", args->policy, "Override the scenario's policy (dlsim list cluster-policy)");
  cmd->add_option("--placement", args->placement, "Override the placement (dlsim list cluster-placement)");
  CLI::Option* json = cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_flag("--records", args->records, "With --json: include every job's record")->needs(json);
  cmd->add_option("--csv", args->jobs_csv, "Write every job's record as CSV to this file");
  cmd->add_option("--series", args->series_csv, "Write the utilisation time series as CSV to this file");
  cmd->add_option("--trace", args->trace_path, "Write a Perfetto / Chrome trace JSON (a track per node)");
  cmd->add_option(
      "--html", args->html_path,
      "Write a self-contained HTML report (utilisation, queue, JCT CDF; per policy with --compare)");
  cmd->add_flag("--check", args->check, "Validate the scenario and print a summary");
  CLI::Option* sweep = cmd->add_flag("--sweep", args->sweep,
                                     "Run the scenario's sweep: section (policies x load scales x seeds)");
  cmd->add_option("--threads", args->threads, "Threads of --sweep (0: all cores)")
      ->check(CLI::Range(0, 4096))
      ->needs(sweep);
  AddQuietAndRun(cmd, "sweep points", "No progress line during --sweep",
                 [args, &global](ProgressFn progress) {
                   args->progress = std::move(progress);
                   return app::RunClusterCommand(*args, global, CommandOut(), std::cerr);
                 })
      ->needs(sweep);
}

}  // namespace dlsim::cli
