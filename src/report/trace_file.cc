#include "dlsim/report/trace_file.h"

#include <filesystem>

#include "dlsim/core/input_files.h"
#include "dlsim/report/format.h"

namespace dlsim::report {

Result<std::unique_ptr<TraceFile>> TraceFile::Open(const std::string& path, const RunInfo& run,
                                                   const std::vector<std::string>& inputs) {
  if (path.empty()) return std::unique_ptr<TraceFile>();
  for (const std::string& in : inputs) NoteInputFile(in);
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput("--trace", path));
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
  Status st = sink_.Finish();
  if (st.ok()) return st;
  return Error{st.error().code, "--trace " + path_ + ": " + st.error().message};  // name the file (issue 35)
}

std::string TraceFile::Summary() const {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path_, ec);
  return "trace: " + path_ + " (" + std::to_string(sink_.events_written()) + " events, " +
         (ec ? std::string("size unknown") : FormatBytes(Bytes(static_cast<double>(bytes)))) +
         "); open it in ui.perfetto.dev";
}

}  // namespace dlsim::report
