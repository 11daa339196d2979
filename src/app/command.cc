#include "dlsim/app/command.h"

#include "dlsim/report/json_report.h"

namespace dlsim::app {

int ReportError(const std::string& command, const Error& error, std::ostream& err) {
  err << "dlsim " << command << ": " << error.message << "\n";
  return error.code == ErrorCode::kInfeasible ? kExitInfeasible : kExitError;
}

std::string JsonOutput(nlohmann::ordered_json j) {
  if (j.is_object() && !j.contains("dlsim_version")) j["dlsim_version"] = DLSIM_VERSION;
  return report::DumpDeterministic(j);
}

}  // namespace dlsim::app
