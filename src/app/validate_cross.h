// Private to src/app: `dlsim validate --cross-validate` — the training fit cross-validated
// (validate/cross_validation.h), warm-started at the loaded training calibration, rendered as a
// table (in-sample, k-fold and leave-one-set-out MAPE per fit set, then the refits) or JSON.
//
//   return RunCrossValidation(args, catalogs, out, err);   // from RunValidateCommand
#ifndef DLSIM_SRC_APP_VALIDATE_CROSS_H_
#define DLSIM_SRC_APP_VALIDATE_CROSS_H_

#include <ostream>

#include "dlsim/app/validate_command.h"
#include "dlsim/catalog/catalogs.h"

namespace dlsim::app {

// Returns kExitOk, or kExitError on invalid options, a failing fit or no fit set matching
// args.only. The output is identical for any args.threads.
int RunCrossValidation(const ValidateArgs& args, const catalog::Catalogs& catalogs, std::ostream& out,
                       std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_SRC_APP_VALIDATE_CROSS_H_
