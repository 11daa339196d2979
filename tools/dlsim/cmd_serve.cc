// dlsim serve FILE [--json] [--trace OUT.json] [--html OUT.html] [--csv DIR] [--check]
//                  [--capacity [--target 0.9]] [--quiet]
// Argument parsing only; the command is app::RunServeCommand (docs/serving.md).
#include <cstdlib>
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/serve_command.h"
#include "progress.h"

namespace dlsim::cli {

void AddServeCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "serve", "Simulate LLM serving: latency percentiles, throughput, SLO attainment (docs/serving.md)");
  auto args = std::make_shared<app::ServeArgs>();
  cmd->add_option("FILE", args->file, "Serving scenario (YAML)")->required();
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_flag("--check", args->check, "Validate the scenario and print a summary");
  CLI::Option* capacity = cmd->add_flag("--capacity", args->capacity,
                                        "Search the highest arrival rate per replica meeting the SLO target");
  cmd->add_option("--target", args->target, "SLO attainment target of --capacity (default 0.9)")
      ->needs(capacity)
      ->check(CLI::Validator(
          [](std::string& v) {
            const double x = std::strtod(v.c_str(), nullptr);
            return x > 0 && x <= 1 ? std::string() : "expected a number in (0, 1], found '" + v + "'";
          },
          "in (0, 1]"));
  cmd->add_option("--trace", args->trace_path, "Write a Perfetto / Chrome trace JSON of the iterations");
  cmd->add_option(
      "--html", args->html_path,
      "Write a self-contained HTML report (latency CDFs, throughput, queue and KV use over time)");
  cmd->add_option("--csv", args->csv_dir, "Write DIR/requests.csv: one row per request");
  AddQuietAndRun(cmd, "requests", "No progress line", [args, &global](ProgressFn progress) {
    args->progress = std::move(progress);
    return app::RunServeCommand(*args, global, CommandOut(), std::cerr);
  });
}

}  // namespace dlsim::cli
