// dlsim gnn FILE [--json] [--check] [--compare] [--trace OUT.json] [--html OUT.html] [--quiet]
// Argument parsing only; the command is app::RunGnnCommand (docs/gnn.md).
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/gnn_command.h"
#include "progress.h"

namespace dlsim::cli {

void AddGnnCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("gnn",
                                 "Simulate a GNN training data pipeline: sampling, feature caches, "
                                 "partitions, epoch time (docs/gnn.md)");
  auto args = std::make_shared<app::GnnArgs>();
  cmd->add_option("FILE", args->file, "GNN scenario (YAML)")->required();
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_flag("--check", args->check, "Validate the scenario and print a summary");
  cmd->add_flag("--compare", args->compare,
                "Run the scenario's compare: variants (or dgl-like, pagraph, lru, bgl) on the same graph");
  cmd->add_option("--trace", args->trace_path, "Write a Perfetto / Chrome trace JSON, a track per stage");
  cmd->add_option("--html", args->html_path,
                  "Write a self-contained HTML report (stages, timeline, feature reads; every variant with "
                  "--compare)");
  AddQuietAndRun(cmd, "training nodes", "No progress line", [args, &global](ProgressFn progress) {
    args->progress = std::move(progress);
    return app::RunGnnCommand(*args, global, CommandOut(), std::cerr);
  });
}

}  // namespace dlsim::cli
