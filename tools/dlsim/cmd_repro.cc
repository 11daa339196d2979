// dlsim repro list | NAME [--json] [--html OUT.html] | --check [--expect FILE]: reproductions of published
// systems. Argument parsing only; the command is app::RunReproCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/repro_command.h"

namespace dlsim::cli {

void AddReproCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("repro", "Reproduce a published system's headline claim (repro list)");
  auto args = std::make_shared<app::ReproArgs>();
  cmd->add_option("name", args->name, "Reproduction name, or 'list'");
  cmd->add_flag("--json", args->json, "Print one JSON object");
  cmd->add_option("--html", args->html_path,
                  "Write a self-contained HTML page: the headline and the paper's points against ours");
  cmd->add_option("--graphs", args->graphs_dir,
                  "Folder of edge lists a graph reproduction adds to its built-in graphs (ugrapher)");
  cmd->add_flag("--check", args->check,
                "Run every reproduction; exit 1 when a verdict differs from docs/reproductions.md's table");
  cmd->add_option("--expect", args->expect_file,
                  "With --check: read the '## Verdicts' table from FILE instead of the built-in docs")
      ->needs("--check");
  cmd->callback([&global, args] { Exit(app::RunReproCommand(*args, global, CommandOut(), std::cerr)); });
}

}  // namespace dlsim::cli
