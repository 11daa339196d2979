// The held-out sets kept as runs files (runs_file_sets.h).
#include "dlsim/io/runs_file_sets.h"

#include <string_view>

#include "dlsim/io/calibration_runs.h"
#include "dlsim/validate/calibrate.h"

namespace dlsim::embedded {
std::string_view CudnnFrontendLlama32H200RunsCsv();
std::string_view CudnnFrontendLlama32B200RunsCsv();
}  // namespace dlsim::embedded

namespace dlsim::io {
namespace {

struct RunsFileSet {
  const char* name;
  const char* file;  // under data/validation; names the file in messages
  std::string_view (*text)();
};

// NVIDIA cudnn-frontend's Llama-3.2-1B eager training at locked SM clocks (docs/validation.md).
constexpr RunsFileSet kSets[] = {
    {"cudnn-frontend-llama3.2-1b-h200", "cudnn_frontend_llama32_1b_h200_runs.csv",
     embedded::CudnnFrontendLlama32H200RunsCsv},
    {"cudnn-frontend-llama3.2-1b-b200", "cudnn_frontend_llama32_1b_b200_runs.csv",
     embedded::CudnnFrontendLlama32B200RunsCsv},
};

// The file's first comment line without its '#', or the file's name.
std::string SourceLine(std::string_view text, const std::string& file) {
  if (text.empty() || text[0] != '#') return file;
  std::string_view line = text.substr(1, text.find('\n') - 1);
  while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  return std::string(line);
}

}  // namespace

Result<std::vector<validate::ValidationSet>> RunRunsFileSets(const catalog::Catalogs& catalogs,
                                                             const std::string& only) {
  std::vector<validate::ValidationSet> out;
  for (const RunsFileSet& s : kSets) {
    if (std::string_view(s.name).find(only) == std::string_view::npos) continue;
    const std::string file = std::string("data/validation/") + s.file;
    DLSIM_ASSIGN_OR_RETURN(auto runs, ParseCalibrationRuns(s.text(), file, catalogs));
    out.push_back(validate::ScoreRuns(s.name, SourceLine(s.text(), file), runs, catalogs));
  }
  return out;
}

}  // namespace dlsim::io
