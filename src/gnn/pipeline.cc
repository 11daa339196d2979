#include "dlsim/gnn/pipeline.h"

#include <algorithm>

namespace dlsim::gnn {

PipelineTiming RunPipeline(const StageTimes& stages, bool pipelined, report::Sink* sink, int process) {
  PipelineTiming p;
  const size_t num_stages = stages.size();
  const size_t batches = stages.empty() ? 0 : stages[0].per_batch.size();
  p.busy.assign(num_stages, Duration::Zero());
  if (sink)
    for (size_t s = 0; s < num_stages; ++s)
      sink->OnThreadName({process, static_cast<int>(s), stages[s].name, static_cast<int>(s)});
  std::vector<TimePoint> stage_free(num_stages, TimePoint::Start());
  TimePoint serial = TimePoint::Start();  // unpipelined: one batch in flight
  for (size_t b = 0; b < batches; ++b) {
    TimePoint ready = pipelined ? TimePoint::Start() : serial;
    for (size_t s = 0; s < num_stages; ++s) {
      const Duration t = stages[s].per_batch[b];
      const TimePoint start = std::max(ready, stage_free[s]);
      ready = stage_free[s] = start + t;
      p.busy[s] += t;
      if (sink && t > Duration::Zero())
        sink->OnSpan({process,
                      static_cast<int>(s),
                      stages[s].name,
                      "gnn",
                      start,
                      t,
                      {{"batch", static_cast<int64_t>(b)}}});
    }
    serial = ready;
    if (b == 0) p.fill = ready.SinceStart();
  }
  for (const TimePoint& t : stage_free) p.makespan = std::max(p.makespan, t.SinceStart());
  for (size_t s = 0; s < num_stages; ++s) {
    p.utilisation.push_back(p.makespan > Duration::Zero() ? p.busy[s] / p.makespan : 0.0);
    if (p.busy[s] > p.busy[p.bottleneck]) p.bottleneck = s;
  }
  return p;
}

}  // namespace dlsim::gnn
