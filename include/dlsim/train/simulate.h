// The training module's entry point (the module template, docs/design/architecture.md):
// resolved options + catalogs -> one simulated step (or, with a data: section, several steps
// with real micro-batch contents).
//
//   Result<catalog::Catalogs> cat = io::LoadCatalogs({});
//   Result<train::StepResult> r = train::Simulate(options, *cat, /*sink=*/nullptr);
//   if (r.ok() && !r->feasible) std::cout << r->reason;
//
// Thread-safe for distinct arguments (no global state).
#ifndef DLSIM_TRAIN_SIMULATE_H_
#define DLSIM_TRAIN_SIMULATE_H_

#include "dlsim/catalog/catalogs.h"
#include "dlsim/core/result.h"
#include "dlsim/report/sink.h"
#include "dlsim/train/options.h"
#include "dlsim/train/step_model.h"

namespace dlsim::train {

// Prices with the catalogs' kernel calibration under the training constants (MakeStepContext).
// An infeasible configuration (out of memory, a layout that does not divide) is a result with
// feasible = false and a reason. Error: a name the catalogs do not hold (kNotFound) or a policy
// that cannot be created. `sink` (may be null) receives the step's events.
Result<StepResult> Simulate(const TrainOptions& options, const catalog::Catalogs& catalogs,
                            report::Sink* sink);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_SIMULATE_H_
