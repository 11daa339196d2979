// `dlsim plan`: read a planner scenario, search its layouts (plan::RunPlanner on the default
// back-end: threads, or MPI ranks under mpirun), render the result.
//
//   app::PlanArgs args{.file = "data/scenarios/plan_nemo_llama2-7b_8gpu.yaml", .json = true};
//   int code = app::RunPlanCommand(args, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_PLAN_COMMAND_H_
#define DLSIM_APP_PLAN_COMMAND_H_

#include <functional>
#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct PlanArgs {
  std::string file;  // planner scenario: a training scenario plus `search:`
  // The scenario's YAML given inline (the Python API: no file is written): when set, `file` only names it in
  // messages, and paths inside it resolve from the working directory.
  std::string text;
  bool json = false;          // one JSON object instead of the report
  std::string csv_path;       // every simulated candidate as CSV, when not empty
  std::string best_path;      // the best layout as a `dlsim train` scenario, when not empty
  std::string html_path;      // self-contained HTML report with charts, when not empty
  int threads = 0;            // worker threads per process (0: all cores)
  int top = 0;                // rows of the top table (0: search.top_k)
  bool no_dominance = false;  // simulate heavier recompute modes even when a lighter fits
  // Called with (simulated, total) while candidates run, on the primary rank only; may be empty.
  std::function<void(size_t, size_t)> progress;
};

// Returns an ExitCode: kExitInfeasible when no candidate is feasible (the report says why each
// was rejected). Non-primary MPI ranks print nothing and return kExitOk.
int RunPlanCommand(const PlanArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_PLAN_COMMAND_H_
