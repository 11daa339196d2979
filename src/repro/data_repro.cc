#include "data_repro.h"

#include <fmt/format.h>

#include "dlsim/io/train_scenario.h"
#include "dlsim/train/context_builder.h"
#include "dlsim/train/pipeline_schedule.h"
#include "dlsim/train/step_model.h"

namespace dlsim::repro::internal {

std::string ScenarioText(const JobSetup& s) {
  std::string dp = s.dp > 0 ? fmt::format(", dp: {}", s.dp) : "";
  return fmt::format(
      "model: {}\n"
      "hardware: {{node: {}, gpus: {}}}\n"
      "training: {{seq_len: {}, global_batch: {}, micro_batch: "
      "{}, precision: {}}}\n"
      "parallel: {{tp: {}, pp: {}, cp: {}{}, sequence_parallel: "
      "{}, zero: 1, recompute: {}}}\n",
      s.model, s.node, s.gpus, s.seq_len, s.global_batch, s.micro_batch, s.precision, s.tp, s.pp, s.cp, dp,
      s.tp > 1 ? "true" : "false", s.recompute);
}

Result<train::TrainOptions> MakeTrainOptions(const io::Catalogs& cat, const JobSetup& s,
                                             const data::DataOptions& data) {
  DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o,
                         io::ParseTrainScenario(ScenarioText(s), "<reproduction>", cat.hardware, cat.models));
  o.data = data;
  return o;
}

Result<DataRun> RunDataJob(const train::TrainOptions& o, const io::Catalogs& cat,
                           const train::DefaultCalibrations& cal) {
  DLSIM_ASSIGN_OR_RETURN(
      auto owned, train::MakeStepContext(o, cat.hardware, cal.compute, cal.network, {}, &cal.training));
  train::PipelineScheduleRegistry schedules("pipeline-schedule");
  train::RegisterPipelineSchedules(schedules);
  const train::StepResult r = train::SimulateTrainingStep(o, owned->ctx, schedules, nullptr);
  DataRun run;
  run.feasible = r.feasible;
  run.reason = r.reason;
  if (!r.feasible || !r.data) return run;
  const train::DataSummary& d = *r.data;
  run.mean_s = d.mean_s;
  run.p50_s = d.p50_s;
  run.p99_s = d.p99_s;
  run.max_s = d.max_s;
  run.straggler_s = d.straggler_mean_s;
  run.tokens_per_s = Ratio(d.real_tokens_per_step, d.mean_s);
  run.padding = d.padding_fraction;
  run.micro_batches = d.max_micro_batches;
  return run;
}

Result<DataRun> RunJob(const io::Catalogs& cat, const train::DefaultCalibrations& cal, const JobSetup& s,
                       const data::DataOptions& data) {
  auto o = MakeTrainOptions(cat, s, data);
  if (!o.ok()) {
    if (o.error().code != ErrorCode::kInvalidArgument) return o.error();
    DataRun run;
    run.reason = o.error().message;
    return run;
  }
  return RunDataJob(*o, cat, cal);
}

data::LengthSpec LmsysLikeLengths(int64_t max_len) {
  data::LengthSpec l;
  l.distribution = "pareto_mix";
  l.median = 600;
  l.sigma = 0.7;
  l.tail_fraction = 0.005;
  l.tail_min = 4096;
  l.tail_alpha = 1.1;
  l.max_len = max_len;
  return l;
}

double Ratio(double num, double den) { return den > 0 ? num / den : 0.0; }

}  // namespace dlsim::repro::internal
