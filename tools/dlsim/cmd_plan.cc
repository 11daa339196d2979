// dlsim plan: search the parallel layouts of a training scenario (docs/planner.md).
//
//   dlsim plan FILE [--json] [--csv OUT.csv] [--write-best OUT.yaml] [--threads N] [--top K]
//                   [--html OUT.html] [--no-dominance] [--quiet]
//   mpirun -n N dlsim plan FILE ...      (candidates split across ranks; rank 0 prints)
//
// Argument parsing and the progress line only; the command is app::RunPlanCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/plan_command.h"
#include "progress.h"

namespace dlsim::cli {
void AddPlanCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("plan",
                                 "Search parallel layouts of a training scenario with a 'search:' "
                                 "section (docs/planner.md)");
  auto args = std::make_shared<app::PlanArgs>();
  cmd->add_option("FILE", args->file, "Planner scenario (YAML): a training scenario plus 'search:'")
      ->required();
  cmd->add_flag("--json", args->json,
                "Print one JSON object (best, top, evaluated, pruned, candidates, ...)");
  cmd->add_option("--csv", args->csv_path, "Write every simulated candidate to this CSV file");
  cmd->add_option("--write-best", args->best_path, "Write the best layout as a scenario for 'dlsim train'");
  cmd->add_option("--html", args->html_path,
                  "Write a self-contained HTML report (step time vs memory and GPUs, Pareto fronts)");
  cmd->add_option("--threads", args->threads, "Worker threads per process (default: all cores)")
      ->check(CLI::Range(0, 4096).description("0 (all cores) to 4096"));
  cmd->add_option("--top", args->top, "Rows of the top table (default: search.top_k, 10)")
      ->check(CLI::Range(1, 100000).description("1 to 100000"));
  cmd->add_flag("--no-dominance", args->no_dominance,
                "Simulate heavier recompute modes even when a lighter fits");
  AddQuietAndRun(cmd, "candidates", "No progress line", [args, &global](ProgressFn progress) {
    args->progress = std::move(progress);
    return app::RunPlanCommand(*args, global, CommandOut(), std::cerr);
  });
}

}  // namespace dlsim::cli
