#include "dlsim/report/trace_file.h"

namespace dlsim::report {

Result<std::unique_ptr<TraceFile>> TraceFile::Open(const std::string& path, const RunInfo& run) {
  if (path.empty()) return std::unique_ptr<TraceFile>();
  std::unique_ptr<TraceFile> t(new TraceFile(path));
  if (!t->file_) return Error::InvalidArgument("cannot write the trace file '" + path + "'");
  DLSIM_RETURN_IF_ERROR(t->sink_.Begin(run));
  return t;
}

TraceFile::~TraceFile() {
  if (!finished_) (void)Finish();
}

Status TraceFile::Finish() {
  finished_ = true;
  return sink_.Finish();
}

}  // namespace dlsim::report
