#include "dlsim/train/routed_steps.h"

#include <utility>
#include <vector>

#include "dlsim/train/expert_routing.h"

namespace dlsim::train {
namespace {

RoutingSummary Summary(const TrainOptions& o, const ExpertGroup& g, const RoutingDraws& d) {
  RoutingSummary s;
  s.skew = o.routing->skew;
  s.ep = g.ep;
  s.experts_per_shard = g.experts / g.ep;
  s.draws = d.micro_batches * d.moe_layers;
  s.hottest_shard = d.hottest_shard;
  s.hottest_first_expert = d.hottest_shard * s.experts_per_shard;
  s.hottest_load = d.hottest_load;
  s.mean_slowest_load = d.mean_slowest_load;
  s.max_slowest_load = d.max_slowest_load;
  s.dropped_fraction = d.dropped_fraction;
  return s;
}

}  // namespace

Result<RoutedStep> SimulateRoutedStep(const TrainOptions& o, const ParallelPlan& plan,
                                      const ChunkCostModel& costs, StepProgram base, report::Sink* sink) {
  if (!o.model.moe.enabled())
    return Error::InvalidArgument("routing: model " + o.model.name + " is dense (no experts to route to)");
  RoutingSkewRegistry skews("routing-skew");
  RegisterRoutingSkews(skews);
  DLSIM_ASSIGN_OR_RETURN(std::unique_ptr<RoutingSkew> skew, skews.Create(o.routing->skew));
  const ExpertGroup& g = costs.moe_volumes().group;
  DLSIM_ASSIGN_OR_RETURN(RoutingDraws draws,
                         DrawRouting(*skew, *o.routing, g, plan.micro_batches, o.model.MoeLayers(), o.seed));
  std::vector<std::vector<ChunkCosts>> table;  // [micro-batch][virtual stage]
  table.reserve(plan.micro_batches);
  ChunkCostModel::RoutedCache cache;
  for (const std::vector<int64_t>& mb : draws.slowest) table.push_back(costs.PriceRouted(mb, cache));
  const int pp = plan.pp;
  base.task_cost = [&table, pp](int, int rank, const PipeTask& t) {
    const ChunkCosts& c = table[t.micro_batch][t.chunk * pp + rank];
    return t.forward ? c.forward : c.backward;
  };
  RoutedStep out;
  out.timeline = SimulateStep(base, sink);
  out.summary = Summary(o, g, draws);
  return out;
}

}  // namespace dlsim::train
