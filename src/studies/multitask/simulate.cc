#include "dlsim/studies/multitask/simulate.h"

#include <memory>

#include "dlsim/train/context_builder.h"

namespace dlsim::multitask {

Result<MultitaskResult> Simulate(const MultitaskOptions& o, const catalog::Catalogs& catalogs) {
  if (o.hardware.gpus < 1) return Error::InvalidArgument("multitask: hardware.gpus must be >= 1");
  MultitaskResult r;
  DLSIM_ASSIGN_OR_RETURN(r.graph, Contract(o.workload));
  train::TrainOptions t;
  t.hardware = o.hardware;
  t.compute_model = o.compute_model;
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<train::OwnedStepContext> owned, train::MakeStepContext(t, catalogs));
  if (o.intra_gb_per_s > 0) owned->ctx.fabric.intra_bw = BytesPerSecond(o.intra_gb_per_s * 1e9);
  if (!o.pricing.host_floor) owned->ctx.layer_host_time = Duration::Zero();
  r.gpu = owned->gpu.name;
  const ScalabilityEstimator estimator(owned->ctx, o.pricing);
  for (const MetaOp& op : r.graph.ops)
    r.curves.push_back(estimator.Estimate(op, o.workload, o.hardware.gpus));
  const SchedulerInputs in{.workload = &o.workload,
                           .graph = &r.graph,
                           .curves = &r.curves,
                           .budget = o.hardware.gpus,
                           .ctx = &owned->ctx,
                           .placement = o.placement,
                           .precision = o.pricing.precision};
  DLSIM_ASSIGN_OR_RETURN(r.wavefront.schedule, WavefrontSchedule(in));
  DLSIM_ASSIGN_OR_RETURN(r.baseline.schedule, SequentialSchedule(in));
  DLSIM_RETURN_IF_ERROR(CheckSchedule(r.graph, r.wavefront.schedule));
  DLSIM_RETURN_IF_ERROR(CheckSchedule(r.graph, r.baseline.schedule));
  r.wavefront.cost = Evaluate(in, r.wavefront.schedule);
  r.baseline.cost = Evaluate(in, r.baseline.schedule);
  const StepCost& w = r.wavefront.cost;
  const StepCost& b = r.baseline.cost;
  r.use_wavefront = w.fits == b.fits ? w.step <= b.step : w.fits;
  auto ratio = [&](Duration d) { return d > Duration::Zero() ? b.step / d : 0.0; };
  r.speedup = ratio(r.spindle().cost.step);
  r.wavefront_speedup = ratio(w.step);
  return r;
}

}  // namespace dlsim::multitask
