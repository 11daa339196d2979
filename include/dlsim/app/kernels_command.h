// `dlsim kernels OPS.csv --gpu NAME [--cost MODEL] [--json]`: price a list of GPU operators (GEMMs,
// attention, memory-bound kernels; io/kernel_ops_csv.h) with a compute model on one GPU and, where a
// row has `measured_ms`, score the prediction: each row's error, then MAPE and signed mean error per
// op family (docs/cost-model.md, "Pricing any kernel").
//
//   int code = app::RunKernelsCommand({.file = "ops.csv", .gpu = "h200"}, {}, std::cout, std::cerr);
#ifndef DLSIM_APP_KERNELS_COMMAND_H_
#define DLSIM_APP_KERNELS_COMMAND_H_

#include <ostream>
#include <string>

#include "dlsim/app/command.h"

namespace dlsim::app {

struct KernelsArgs {
  std::string file;               // the operator CSV
  std::string gpu;                // a catalog GPU (name or alias)
  std::string cost = "roofline";  // a compute-model registry name (dlsim list compute-model)
  bool json = false;              // {"rows": [...], "summary": {...}}
};

// kExitOk when priced; kExitError for a bad file, row, GPU or model name (nothing printed on stdout).
int RunKernelsCommand(const KernelsArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err);

}  // namespace dlsim::app

#endif  // DLSIM_APP_KERNELS_COMMAND_H_
