#include "dlsim/train/simulate.h"

#include "dlsim/train/context_builder.h"
#include "dlsim/train/prediction_interval.h"

namespace dlsim::train {

Result<StepResult> Simulate(const TrainOptions& options, const catalog::Catalogs& catalogs,
                            report::Sink* sink) {
  DLSIM_ASSIGN_OR_RETURN(auto owned, MakeStepContext(options, catalogs));
  PipelineScheduleRegistry schedules("pipeline-schedule");
  RegisterPipelineSchedules(schedules);
  DLSIM_ASSIGN_OR_RETURN(StepResult r, SimulateTrainingStep(options, owned->ctx, schedules, sink));
  if (r.step_time_s > 0)
    r.interval =
        IntervalOf(options, owned->gpu.architecture, r.step_time_s, catalogs.intervals, catalogs.training);
  r.memory_interval = MemoryIntervalOf(r.peak_memory.ToGiB(), catalogs.intervals);
  return r;
}

}  // namespace dlsim::train
