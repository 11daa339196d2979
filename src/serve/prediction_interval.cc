#include "dlsim/serve/prediction_interval.h"

#include <algorithm>
#include <cmath>

namespace dlsim::serve {
namespace {

// A regime lists the engines and GPUs of the rows behind it (scripts/fit-intervals.py writes them); none of
// those runs served quantized (int4, int8) or sparse weights, so a scenario with them is outside every
// regime.
bool Validated(const ServeOptions& o, const cost::IntervalRegime& regime) {
  return cost::Lists(regime.engines, o.engine) && cost::Lists(regime.gpus, o.gpu.name) &&
         o.weight_quant == WeightQuant::kNone && o.weight_sparsity == 0;
}

}  // namespace

std::optional<MetricInterval> IntervalOf(std::string_view regime, double predicted, const ServeOptions& o,
                                         const cost::PredictionIntervals& table) {
  const cost::IntervalRegime* g = table.Find(regime);
  if (g == nullptr || !(predicted > 0) || !std::isfinite(predicted)) return std::nullopt;
  if (Validated(o, *g)) return MetricInterval{predicted * g->low, predicted * g->high, table.level, g->name};
  const auto [low, high] = table.WidenedOutside(*g);
  return MetricInterval{predicted * low, predicted * high, table.level, "outside", true};
}

void AttachIntervals(const ServeOptions& o, const cost::PredictionIntervals& table, ServeResult& r) {
  r.tpot_interval = r.ttft_interval = r.throughput_interval = std::nullopt;
  if (!r.feasible) return;
  const ServeMetrics& m = r.metrics;
  if (m.tpot_requests > 0) r.tpot_interval = IntervalOf("serving", m.tpot_s.mean, o, table);
  if (m.requests_completed > 0) {
    r.ttft_interval = IntervalOf("serving-ttft", m.ttft_s.mean, o, table);
    r.throughput_interval = IntervalOf("serving-throughput", m.throughput_requests_per_s, o, table);
    // An open loop cannot complete its requests faster than they arrive: however fast the engine, the run
    // lasts at least from the first arrival to the last.
    if (r.throughput_interval && o.workload.concurrency <= 0 && m.arrival_span_s > 0)
      r.throughput_interval->high =
          std::min(r.throughput_interval->high, static_cast<double>(m.requests_completed) / m.arrival_span_s);
  }
}

}  // namespace dlsim::serve
