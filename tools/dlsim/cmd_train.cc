// dlsim train: read a training scenario, validate it, and run the step simulation.
//
//   dlsim train FILE [--json] [--trace OUT.json] [--check]
//   dlsim train --default ...        (the embedded data/scenarios/default_train.yaml)
//
// Errors in the scenario go to stderr as "dlsim train: FILE:LINE:COL: KEY: ..." and exit 1.
#include <fmt/core.h>

#include <iostream>
#include <string>

#include "commands.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/embedded.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/train/run.h"

namespace dlsim::cli {
namespace {

struct TrainArgs {
  std::string file;
  bool use_default = false;
  bool json = false;
  bool check = false;
  std::string trace_path;
};

Result<train::TrainOptions> LoadScenario(const TrainArgs& args, const io::Catalogs& catalogs) {
  if (args.use_default) {
    return io::ParseTrainScenario(embedded::DefaultTrainScenarioYaml(), "default_train.yaml (embedded)",
                                  catalogs.hardware, catalogs.models);
  }
  return io::LoadTrainScenarioFile(args.file, catalogs.hardware, catalogs.models);
}

void RunTrain(const TrainArgs& args, const GlobalOptions& global) {
  if (args.file.empty() == !args.use_default) {
    Fail("train", "give a scenario FILE or --default (exactly one); see 'dlsim train --help'", 2);
  }
  Result<io::Catalogs> catalogs = io::LoadCatalogs(global.catalog_files);
  if (!catalogs.ok()) Fail("train", catalogs.error().message);
  Result<train::TrainOptions> options = LoadScenario(args, *catalogs);
  if (!options.ok()) Fail("train", options.error().message);
  if (args.check) {
    fmt::print("ok: {}\n", io::SummarizeTrainOptions(*options));
    return;
  }
  train::RunFlags flags;
  flags.json = args.json;
  flags.trace_path = args.trace_path;
  const int code = train::RunTrainCommand(*options, catalogs->hardware, flags, std::cout, std::cerr);
  std::cout.flush();
  if (code != 0) throw CLI::RuntimeError(code);
}

}  // namespace

void AddTrainCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd =
      app.add_subcommand("train", "Simulate one training step of a scenario (docs/scenario-format.md)");
  auto args = std::make_shared<TrainArgs>();
  cmd->add_option("FILE", args->file, "Training scenario (YAML)");
  cmd->add_flag("--default", args->use_default,
                "Use the embedded default scenario (Llama 3 8B on one DGX H100)");
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_option("--trace", args->trace_path,
                  "Write a Perfetto / Chrome trace JSON of the step to this file");
  cmd->add_flag("--check", args->check, "Only validate the scenario: print 'ok: <summary>' and exit 0");
  cmd->callback([args, &global] { RunTrain(*args, global); });
}

}  // namespace dlsim::cli
