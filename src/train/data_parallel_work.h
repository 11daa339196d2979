// The data-parallel side of a training step's program (data_parallel_work.cc): gradient reduction buckets,
// the optimizer step with its casts and per-micro-batch gradient accumulation, and the parameter gathers of
// ZeRO-1/2 (after the step) and ZeRO-3 (per chunk and pass). Internal to the train module; step_model.cc
// builds the rest of the program.
#ifndef DLSIM_SRC_TRAIN_DATA_PARALLEL_WORK_H_
#define DLSIM_SRC_TRAIN_DATA_PARALLEL_WORK_H_

#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_context.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train::internal {

// Adds to `prog`, per pipeline rank, the gradient buckets reduced over the weight group (routed experts over
// their expert-data-parallel group), the optimizer step over the rank's shard (prog.optimizer, with its casts
// and accumulation also in prog.optimizer_casts) and the parameter gathers. Precondition: `prog` has the
// program's shape and `costs` prices every (rank, chunk) of `plan`.
void AddDataParallelWork(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                         const ChunkCostModel& costs, StepProgram& prog);

}  // namespace dlsim::train::internal

#endif  // DLSIM_SRC_TRAIN_DATA_PARALLEL_WORK_H_
