// dlsim validate [--set TEXT] [--json] [--summary] [--html OUT.html]
//                [--cross-validate [--folds K] [--seed N] [--cv-iterations N]
//                 [--loso-iterations N] [--threads N]]
// Argument parsing only; the command is app::RunValidateCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/validate_command.h"
#include "progress.h"

namespace dlsim::cli {

void AddValidateCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd =
      app.add_subcommand("validate", "Compare predictions with published measurements (MAPE per set)");
  auto args = std::make_shared<app::ValidateArgs>();
  cmd->add_option("--set", args->only, "Only sets whose name contains this text");
  cmd->add_flag("--json", args->json, "Print JSON");
  cmd->add_flag("--summary", args->summary, "Only the per-set summary");
  cmd->add_option("--html", args->html_path,
                  "Write a self-contained HTML page: every set's predictions against its measurements");
  cmd->add_option(
         "--calibrate-with", args->calibrate_with,
         "Held-out sets: also calibrate on N of each set's rows (dlsim calibrate) and score the rest")
      ->check(CLI::Range(2, 1000));
  CLI::Option* cv = cmd->add_flag(
      "--cross-validate", args->cross_validate,
      "Refit the training constants without each fold / set and print the cross-validated MAPE");
  cmd->add_option("--folds", args->folds, "k of the k-fold cross-validation (default 5)")
      ->check(CLI::Range(2, 1000))
      ->needs(cv);
  cmd->add_option("--seed", args->seed, "Seed of the fold assignment (default 20)")->needs(cv);
  cmd->add_option("--cv-iterations", args->cv_iterations,
                  "Nelder-Mead iterations per k-fold refit (default 60)")
      ->check(CLI::Range(1, 1000000))
      ->needs(cv);
  cmd->add_option("--loso-iterations", args->loso_iterations,
                  "Iterations per stage of a leave-one-set-out refit (default 150, as dlsim-fit-training)")
      ->check(CLI::Range(1, 1000000))
      ->needs(cv);
  cmd->add_option("--threads", args->threads, "Refits in parallel (0: all cores; the output does not change)")
      ->check(CLI::Range(0, 4096))
      ->needs(cv);
  AddQuietAndRun(cmd, "refits", "No progress line during --cross-validate",
                 [args, &global](ProgressFn progress) {
                   args->progress = std::move(progress);
                   return app::RunValidateCommand(*args, global, CommandOut(), std::cerr);
                 });
}

}  // namespace dlsim::cli
