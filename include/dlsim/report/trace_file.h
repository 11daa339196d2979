// A Chrome / Perfetto trace written to a file (the `--trace FILE` of every command).
//
//   DLSIM_ASSIGN_OR_RETURN(auto trace, report::TraceFile::Open(path, {"llama3-8b", "train"}));
//   Simulate(options, catalogs, trace ? trace->sink() : nullptr);
//   if (trace) DLSIM_RETURN_IF_ERROR(trace->Finish());
//
// Owns the file and the sink. If Finish() is never called, the destructor closes the document
// so the file is still valid JSON (its write errors are then lost). Not thread-safe.
#ifndef DLSIM_REPORT_TRACE_FILE_H_
#define DLSIM_REPORT_TRACE_FILE_H_

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/report/chrome_trace_sink.h"

namespace dlsim::report {

class TraceFile {
 public:
  // Opens `path` and writes the opening of the document. Returns null when `path` is empty
  // (no trace wanted). Error (kInvalidArgument): `path` is one of `inputs` (the trace would
  // overwrite the scenario it traces), or the file cannot be written.
  static Result<std::unique_ptr<TraceFile>> Open(const std::string& path, const RunInfo& run,
                                                 const std::vector<std::string>& inputs = {});

  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
  ~TraceFile();

  Sink* sink() { return &sink_; }
  // Writes the closing of the document. Error: any write failed.
  Status Finish();
  // "trace: PATH (N events, 1.2 MB); open it in ui.perfetto.dev", after Finish().
  std::string Summary() const;

 private:
  explicit TraceFile(const std::string& path) : path_(path), file_(path, std::ios::binary), sink_(file_) {}

  std::string path_;
  std::ofstream file_;
  ChromeTraceSink sink_;
  bool finished_ = false;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_TRACE_FILE_H_
