// Private to src/app: `dlsim train --chakra DIR` — the simulated step as Chakra execution traces, one file
// per GPU (report/chakra_trace.h).
//
//   DLSIM_ASSIGN_OR_RETURN(report::ChakraLayout layout, ChakraLayoutOf(result.plan, processes));
//   DLSIM_ASSIGN_OR_RETURN(report::ChakraSummary s, report::WriteChakraTraces(graph, layout, dir));
#ifndef DLSIM_SRC_APP_TRAIN_CHAKRA_H_
#define DLSIM_SRC_APP_TRAIN_CHAKRA_H_

#include "dlsim/core/result.h"
#include "dlsim/report/chakra_trace.h"
#include "dlsim/train/parallel_plan.h"

namespace dlsim::app {

// The GPUs of `plan` in Megatron's order (tensor-parallel rank fastest, then context, data and pipeline:
// rank = ((pp_rank * dp + dp_rank) * cp + cp_rank) * tp + tp_rank) mapped onto the simulation's `processes`
// (replica * pp + pipeline rank; replicas = processes / pp, GPU of data-parallel rank d runs replica
// d % replicas), and the groups the step's collectives run over: "dp" (the weight group: one pipeline rank
// and tensor-parallel rank, every data- and context-parallel rank) and "edp" (a routed expert's data-parallel
// group: the stage's tp x cp x dp ranks laid out as etp x ep x edp, expert-tensor rank fastest).
// Error (kInvalidArgument): `processes` is not a positive multiple of plan.pp dividing plan.dp's replicas.
Result<report::ChakraLayout> ChakraLayoutOf(const train::ParallelPlan& plan, int processes);

}  // namespace dlsim::app

#endif  // DLSIM_SRC_APP_TRAIN_CHAKRA_H_
