// `dlsim gnn`: read a GNN data-pipeline scenario, simulate an epoch (or --compare policies on the
// same graph), render the result.
//
//   app::GnnArgs args{.file = "data/scenarios/gnn_bgl_rmat22.yaml"};
//   int code = app::RunGnnCommand(args, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_GNN_COMMAND_H_
#define DLSIM_APP_GNN_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"
#include "dlsim/core/progress.h"

namespace dlsim::app {

struct GnnArgs {
  std::string file;  // scenario YAML
  // The scenario's YAML given inline (the Python API: no file is written): when set, `file` only names it in
  // messages, and paths inside it resolve from the working directory.
  std::string text;
  bool json = false;       // one JSON object instead of the tables
  bool check = false;      // only validate: print "ok: <summary>"
  bool compare = false;    // the scenario's compare: list (or the default set) side by side
  std::string trace_path;  // Perfetto / Chrome trace, a track per stage of the slowest machine
  std::string html_path;   // HTML report: stages, timeline, feature reads (with compare: every variant)
  ProgressFn progress;  // training nodes sampled so far, of all (every variant's with compare); may be empty
};

// Returns an ExitCode (kExitInfeasible when the configuration cannot run: the result says why).
int RunGnnCommand(const GnnArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_GNN_COMMAND_H_
