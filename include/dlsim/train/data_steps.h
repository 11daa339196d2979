// Data-aware training: consecutive steps whose micro-batches carry real contents.
//
// Each step draws documents from the scenario's length source until the step's token budget
// (global_batch x seq_len) is reached, lets the data policy place them on data- and
// context-parallel ranks and micro-batches, prices every micro-batch from its own loads, and
// simulates every data-parallel replica: padding waste, attention imbalance, pipeline stalls
// and stragglers appear as they do in real runs.
#ifndef DLSIM_TRAIN_DATA_STEPS_H_
#define DLSIM_TRAIN_DATA_STEPS_H_

#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/report/sink.h"
#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/pipeline_schedule.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

struct DataStepsResult {
  std::vector<StepTimeline> steps;
  std::vector<Bytes> stage_activations;  // largest per-micro-batch activations, per virtual stage
  std::vector<Bytes> stage_state;        // largest resident state (ChunkCosts::resident_state), per stage
  int64_t real_tokens = 0;               // over all steps
  double sum_sq_doc_tokens = 0;          // over all steps' documents (truncated): sum of length^2
  int64_t computed_tokens = 0;           // padding included
  int documents = 0;
  int truncated = 0;
  int max_micro_batches = 0;  // most micro-batches any replica ran in a step
};

// Runs o.data->steps steps. `base` carries the step's shared parts (buckets, optimizer, p2p);
// its orders and task costs are replaced per step. The sink (if any) receives the first step.
// Errors: an unknown policy or length distribution, a policy that cannot place a document,
// an interleaved schedule whose micro-batch count does not divide.
Result<DataStepsResult> SimulateDataSteps(const TrainOptions& o, const ParallelPlan& plan,
                                          const ChunkCostModel& costs, const PipelineSchedule& schedule,
                                          StepProgram base, report::Sink* sink);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_DATA_STEPS_H_
