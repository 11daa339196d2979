#include "dlsim/train/simulate.h"

#include "dlsim/train/context_builder.h"

namespace dlsim::train {

Result<StepResult> Simulate(const TrainOptions& options, const catalog::Catalogs& catalogs,
                            report::Sink* sink) {
  DLSIM_ASSIGN_OR_RETURN(auto owned, MakeStepContext(options, catalogs));
  PipelineScheduleRegistry schedules("pipeline-schedule");
  RegisterPipelineSchedules(schedules);
  return SimulateTrainingStep(options, owned->ctx, schedules, sink);
}

}  // namespace dlsim::train
