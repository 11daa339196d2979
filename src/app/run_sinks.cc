#include "run_sinks.h"

#include "dlsim/core/input_files.h"

namespace dlsim::app {

Result<RunSinks> RunSinks::Open(const std::string& trace_path, const std::string& html_path,
                                const report::RunInfo& run, const std::vector<std::string>& inputs,
                                bool execution_graph) {
  for (const std::string& in : inputs) NoteInputFile(in);
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput("--html", html_path));  // before the run, not after it
  RunSinks s;
  DLSIM_ASSIGN_OR_RETURN(s.trace_, report::TraceFile::Open(trace_path, run, inputs));
  if (s.trace_) s.set_->Add(*s.trace_->sink());
  if (!html_path.empty()) {
    s.recorder_ = std::make_unique<report::TimelineRecorder>();
    s.set_->Add(*s.recorder_);
  }
  if (execution_graph) {
    s.graph_ = std::make_unique<report::ExecutionGraphRecorder>();
    s.set_->Add(*s.graph_);
  }
  return s;
}

Status WritePage(const report::HtmlPage& page, const std::string& path, std::ostream& err) {
  DLSIM_RETURN_IF_ERROR(page.WriteFile(path));
  err << "html: " << path << "\n";
  return Status::Ok();
}

Status RunSinks::Finish(std::ostream& err) {
  if (graph_) DLSIM_RETURN_IF_ERROR(graph_->Finish());
  if (!trace_) return Status::Ok();
  DLSIM_RETURN_IF_ERROR(trace_->Finish());
  err << trace_->Summary() << "\n";
  return Status::Ok();
}

}  // namespace dlsim::app
