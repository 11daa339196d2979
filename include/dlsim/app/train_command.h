// `dlsim train`: read a training scenario, simulate it (train::Simulate), render the result.
//
//   app::TrainArgs args{.file = "data/scenarios/default_train.yaml", .json = true};
//   int code = app::RunTrainCommand(args, {}, std::cout, std::cerr);
//
// Renderings of the result (terminal tables and JSON) live in train_render.h.
#ifndef DLSIM_APP_TRAIN_COMMAND_H_
#define DLSIM_APP_TRAIN_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct TrainArgs {
  std::string file;  // scenario YAML (or use_default)
  // The scenario's YAML given inline (the Python API: no file is written): when set, `file` only names it in
  // messages, and paths inside it resolve from the working directory.
  std::string text;
  bool use_default = false;  // the embedded data/scenarios/default_train.yaml
  bool json = false;         // one JSON object instead of the tables
  bool check = false;        // only validate: print "ok: <summary>"
  std::string trace_path;    // Perfetto / Chrome trace of the step, when not empty
  std::string html_path;     // self-contained HTML report with charts, when not empty
  // A folder for Chakra execution traces of the step (one file per GPU, report/chakra_trace.h), when not
  // empty.
  std::string chakra_dir;
  // A profiled step (Kineto / Chrome trace JSON, plain or gzipped) to print dlsim's breakdown beside,
  // category by category (validate/trace_compare.h), when not empty. Read before the simulation: a bad trace
  // is an error.
  std::string compare_trace;
};

// Returns an ExitCode: kExitOk, kExitError (bad scenario or catalog, unwritable trace),
// kExitUsage (neither or both of file and use_default), kExitInfeasible (the result, which is
// still printed, says why). Errors go to `err` as "dlsim train: ...".
int RunTrainCommand(const TrainArgs& args, const CommonArgs& common, std::ostream& out, std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_TRAIN_COMMAND_H_
