// Private to src/app: the sinks one command run feeds — the Perfetto trace (--trace FILE) and
// the bounded recorder behind the HTML report (--html FILE) — as one Sink, so a simulator is
// given a single pointer whatever the user asked for.
//
//   DLSIM_ASSIGN_OR_RETURN(RunSinks sinks, RunSinks::Open(args.trace_path, args.html_path, run,
//   {args.file})); Simulate(options, ..., sinks.sink());   // null when neither output was asked for
//   DLSIM_RETURN_IF_ERROR(sinks.Finish(err));
#ifndef DLSIM_SRC_APP_RUN_SINKS_H_
#define DLSIM_SRC_APP_RUN_SINKS_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/report/execution_graph.h"
#include "dlsim/report/html_page.h"
#include "dlsim/report/sink.h"
#include "dlsim/report/timeline_recorder.h"
#include "dlsim/report/trace_file.h"

namespace dlsim::app {

// Writes `page` to `path` and says on `err` where it went ("html: PATH"). Error: the file cannot be written.
Status WritePage(const report::HtmlPage& page, const std::string& path, std::ostream& err);

class RunSinks {
 public:
  // Opens the trace when `trace_path` is not empty (TraceFile::Open's errors), a recorder when
  // `html_path` is not empty, and an execution-graph recorder when `execution_graph`. Error
  // (kInvalidArgument): `html_path` is one of `inputs`.
  static Result<RunSinks> Open(const std::string& trace_path, const std::string& html_path,
                               const report::RunInfo& run, const std::vector<std::string>& inputs,
                               bool execution_graph = false);
  // The sink to give the simulator; null when there is neither a trace nor a recorder.
  report::Sink* sink() { return set_->size() == 0 ? nullptr : set_.get(); }
  // The recorder; null when no HTML report was asked for.
  const report::TimelineRecorder* recorder() const { return recorder_.get(); }
  // The execution graph; null when it was not asked for. Complete once Finish() returned.
  const report::ExecutionGraphRecorder* graph() const { return graph_.get(); }
  // Finishes the trace (saying on `err` where it went) and the execution graph. Error: a trace write failed;
  // the graph is too large or malformed.
  Status Finish(std::ostream& err);

 private:
  std::unique_ptr<report::TraceFile> trace_;
  std::unique_ptr<report::TimelineRecorder> recorder_;
  std::unique_ptr<report::ExecutionGraphRecorder> graph_;
  std::unique_ptr<report::SinkSet> set_ = std::make_unique<report::SinkSet>();
};

}  // namespace dlsim::app

#endif  // DLSIM_SRC_APP_RUN_SINKS_H_
