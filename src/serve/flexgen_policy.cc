#include "dlsim/serve/flexgen_policy.h"

#include <algorithm>

#include "dlsim/serve/offload.h"

namespace dlsim::serve {
namespace {

// Predicted decode throughput of placement (f, g) of `o`; fills `batch`.
double Throughput(ServeOptions o, const IterationCostModel& cost, double f, double g, int64_t* batch) {
  o.offload.mode = OffloadMode::kStatic;
  o.offload.weight_fraction = f;
  o.offload.kv_fraction = g;
  auto plan = PlanMemory(o, cost);
  *batch = 0;
  if (!plan.ok()) return 0;
  const double ctx = o.workload.prompt.median + o.workload.output.median / 2;
  const double tokens = static_cast<double>(plan->kv_blocks) * o.scheduler.block_size;
  if (tokens < o.workload.prompt.max + o.workload.output.max) return 0;  // the longest request must fit
  *batch = std::clamp<int64_t>(static_cast<int64_t>(tokens / ctx), 0, o.scheduler.max_batch_size);
  if (*batch == 0) return 0;
  const BatchShape b = BatchShape::Decode(*batch, static_cast<int64_t>(ctx * static_cast<double>(*batch)));
  const IterationTime t = cost.Time(b);
  const Bytes moved =
      plan->layer_weights * f + plan->token_kv * (g * static_cast<double>(b.decode_context) / plan->layers);
  const Duration layer = std::max(t.per_layer, moved / plan->pcie);
  const Duration iteration = layer * static_cast<int64_t>(o.model.layers) + t.fixed;
  return static_cast<double>(*batch) / iteration.ToSeconds();
}

}  // namespace

FlexGenPolicy SearchFlexGenPolicy(const ServeOptions& o, const IterationCostModel& cost) {
  FlexGenPolicy best;
  for (int wi = 0; wi <= 20; ++wi) {
    for (int ki = 0; ki <= 10; ++ki) {
      const double f = wi / 20.0, g = ki / 10.0;
      int64_t batch = 0;
      const double tps = Throughput(o, cost, f, g, &batch);
      if (tps > best.tokens_per_s) best = {f, g, batch, tps};
    }
  }
  return best;
}

}  // namespace dlsim::serve
