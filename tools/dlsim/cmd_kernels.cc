// dlsim kernels OPS.csv --gpu NAME [--cost MODEL] [--json]: price a list of GPU operators.
// Argument parsing only; the command is app::RunKernelsCommand.
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/app/kernels_command.h"

namespace dlsim::cli {

void AddKernelsCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand("kernels",
                                 "Price a CSV of GPU operators (GEMM, attention, elementwise) and score "
                                 "measured times (docs/cost-model.md)");
  auto args = std::make_shared<app::KernelsArgs>();
  cmd->add_option("file", args->file,
                  "Operator CSV: op, m,n,k,dtype | batch,heads,kv_heads,seq_q,seq_kv,head_dim,"
                  "causal,backend | bytes; optional measured_ms")
      ->required();
  cmd->add_option("--gpu", args->gpu, "Catalog GPU (dlsim catalog list)")->required();
  cmd->add_option("--cost", args->cost, "Compute model (dlsim list compute-model)")->capture_default_str();
  cmd->add_flag("--json", args->json, "Print {\"rows\": [...], \"summary\": {...}}");
  cmd->callback([&global, args] { Exit(app::RunKernelsCommand(*args, global, CommandOut(), std::cerr)); });
}

}  // namespace dlsim::cli
