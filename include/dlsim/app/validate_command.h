// `dlsim validate`: predicted vs published measurements for every validation set, MAPE per set.
//
//   int code = app::RunValidateCommand({.summary = true}, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_VALIDATE_COMMAND_H_
#define DLSIM_APP_VALIDATE_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct ValidateArgs {
  std::string only;      // only sets whose name contains this text
  bool json = false;     // JSON instead of tables
  bool summary = false;  // only the per-set summary
};

// Returns kExitOk, or kExitError when a set cannot run or none matches `only`.
int RunValidateCommand(const ValidateArgs& args, const CommonArgs& common, std::ostream& out,
                       std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_VALIDATE_COMMAND_H_
