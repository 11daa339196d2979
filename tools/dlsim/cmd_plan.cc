// dlsim plan: search the parallel layouts of a training scenario
// (docs/planner.md).
//
//   dlsim plan FILE [--json] [--csv OUT.csv] [--write-best OUT.yaml] [--threads
//   N] [--top K]
//                   [--no-dominance] [--quiet]
//   mpirun -n N dlsim plan FILE ...      (candidates split across ranks; rank 0
//   prints)
//
// Errors in the scenario go to stderr as "dlsim plan: FILE:LINE:COL: KEY: ..."
// and exit 1.
#include <fmt/core.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <mutex>

#include "commands.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/plan/backend.h"
#include "dlsim/plan/plan_output.h"
#include "dlsim/plan/planner.h"
#include "dlsim/report/json_report.h"
#include "dlsim/train/run.h"

namespace dlsim::cli {
namespace {

struct PlanArgs {
  std::string file;
  bool json = false;
  std::string csv_path;
  std::string best_path;
  int threads = 0;
  int top = 0;
  bool no_dominance = false;
  bool quiet = false;
};

// A one-line progress bar on stderr, redrawn at most every 100 ms.
class ProgressBar {
 public:
  void Update(size_t done, size_t total) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const int width = 40;
    const int filled = total ? static_cast<int>(width * done / total) : width;
    fmt::print(stderr, "\r[{}{}] {}/{} simulated", std::string(filled, '#'), std::string(width - filled, ' '),
               done, total);
    drawn_ = true;
  }
  void Finish() {
    if (drawn_) fmt::print(stderr, "\r{}\r", std::string(72, ' '));
  }

 private:
  std::mutex mu_;
  std::chrono::steady_clock::time_point last_{};
  bool drawn_ = false;
};

void WriteFile(const std::string &path, const std::string &text) {
  std::ofstream f(path);
  f << text;
  if (!f) Fail("plan", "cannot write " + path);
}

void RunPlan(const PlanArgs &args, const GlobalOptions &global) {
  auto catalogs = io::LoadCatalogs(global.catalog_files);
  if (!catalogs.ok()) Fail("plan", catalogs.error().message);
  auto scenario = io::LoadPlanScenarioFile(args.file, catalogs->hardware, catalogs->models);
  if (!scenario.ok()) Fail("plan", scenario.error().message);
  auto cal = train::LoadDefaultCalibrations();
  if (!cal.ok()) Fail("plan", cal.error().message);
  plan::PlanOptions options = scenario->options;
  if (args.top > 0) options.top_k = args.top;
  if (args.no_dominance) options.dominance = false;
  const train::TrainOptions &base = scenario->base;
  const plan::ContextFactory make_context = [&] {
    return train::MakeStepContext(base, catalogs->hardware, cal->compute, cal->network, {}, &cal->training);
  };

  std::unique_ptr<plan::Backend> backend = plan::MakeDefaultBackend(args.threads);
  const bool primary = backend->IsPrimary();
  ProgressBar bar;
  plan::ProgressFn progress;
  if (primary && !args.quiet && isatty(STDERR_FILENO))
    progress = [&](size_t d, size_t t) { bar.Update(d, t); };
  auto result = plan::RunPlanner(base, options, make_context, *backend, progress);
  bar.Finish();
  if (!result.ok()) Fail("plan", result.error().message);
  if (!primary) return;

  if (!args.csv_path.empty()) {
    std::ofstream f(args.csv_path);
    plan::WritePlanCsv(*result, f);
    if (!f) Fail("plan", "cannot write " + args.csv_path);
  }
  if (!args.best_path.empty()) {
    if (result->Best() == nullptr) Fail("plan", "no feasible configuration to write to " + args.best_path);
    const plan::EvaluatedCandidate &best = *result->Best();
    WriteFile(args.best_path,
              io::FormatTrainScenarioYaml(plan::ApplyCandidate(base, best.candidate),
                                          fmt::format("Best layout found by 'dlsim plan {}' ({}: "
                                                      "{:.6g}).\nRun it with: dlsim train {}",
                                                      args.file, plan::ObjectiveName(result->objective),
                                                      best.objective, args.best_path)));
  }
  if (args.json) {
    std::cout << report::DumpDeterministic(plan::PlanJson(*result, options, /*all=*/true));
  } else {
    plan::WritePlanReport(base, options, *result, std::cout);
  }
  std::cout.flush();
}

}  // namespace

void AddPlanCommand(CLI::App &app, GlobalOptions &global) {
  auto *cmd = app.add_subcommand("plan",
                                 "Search parallel layouts of a training scenario with a 'search:' "
                                 "section (docs/planner.md)");
  auto args = std::make_shared<PlanArgs>();
  cmd->add_option("FILE", args->file, "Planner scenario (YAML): a training scenario plus 'search:'")
      ->required();
  cmd->add_flag("--json", args->json,
                "Print one JSON object (best, top, evaluated, pruned, candidates, ...)");
  cmd->add_option("--csv", args->csv_path, "Write every simulated candidate to this CSV file");
  cmd->add_option("--write-best", args->best_path, "Write the best layout as a scenario for 'dlsim train'");
  cmd->add_option("--threads", args->threads, "Worker threads per process (default: all cores)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--top", args->top, "Rows of the top table (default: search.top_k, 10)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-dominance", args->no_dominance,
                "Simulate heavier recompute modes even when a lighter fits");
  cmd->add_flag("--quiet", args->quiet, "No progress bar");
  cmd->callback([args, &global] { RunPlan(*args, global); });
}

}  // namespace dlsim::cli
