// `dlsim serve`: read a serving scenario, simulate it (or search its capacity), render the result.
//
//   app::ServeArgs args{.file = "data/scenarios/serve_llama2_7b_a100_vllm.yaml"};
//   int code = app::RunServeCommand(args, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_SERVE_COMMAND_H_
#define DLSIM_APP_SERVE_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"
#include "dlsim/core/progress.h"

namespace dlsim::app {

struct ServeArgs {
  std::string file;  // scenario YAML
  // The scenario's YAML given inline (the Python API: no file is written): when set, `file` only names it in
  // messages, and paths inside it resolve from the working directory.
  std::string text;
  bool json = false;       // one JSON object instead of the tables
  bool check = false;      // only validate: print "ok: <summary>"
  bool capacity = false;   // search the highest rate per replica meeting the SLO target
  double target = 0.9;     // SLO attainment target of the capacity search
  std::string trace_path;  // Perfetto / Chrome trace of the iterations, when not empty
  std::string html_path;   // self-contained HTML report with charts, when not empty
  std::string csv_dir;     // folder for requests.csv (one row per request), when not empty
  ProgressFn progress;     // requests completed of all, during a run (not a --capacity search); may be empty
};

// Returns an ExitCode (kExitInfeasible when the deployment cannot run: the result says why).
int RunServeCommand(const ServeArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_SERVE_COMMAND_H_
