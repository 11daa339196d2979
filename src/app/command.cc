#include "dlsim/app/command.h"

namespace dlsim::app {

int ReportError(const std::string& command, const Error& error, std::ostream& err) {
  err << "dlsim " << command << ": " << error.message << "\n";
  return error.code == ErrorCode::kInfeasible ? kExitInfeasible : kExitError;
}

}  // namespace dlsim::app
