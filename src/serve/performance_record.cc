#include "dlsim/serve/performance_record.h"

#include <algorithm>

namespace dlsim::serve {
namespace {

std::vector<int64_t> ContextGrid(const ServeOptions& o) {
  const double top = o.workload.prompt.max + o.workload.output.max;
  std::vector<int64_t> grid{64};
  while (static_cast<double>(grid.back()) < top) {
    const int64_t c = grid.back();
    grid.push_back(std::max<int64_t>(c + 16, (c * 11 / 10 + 15) / 16 * 16));
  }
  return grid;
}

RecordEntry Evaluate(const ServeOptions& o, const MemoryPlan& p, const IterationCostModel& cost, int64_t b,
                     int64_t c) {
  RecordEntry e{.batch = b, .context = c};
  BatchShape shape;
  shape.decode_requests = b;
  shape.decode_context = b * c;
  shape.logits = b;
  const IterationTime t = cost.Time(shape);
  const double tokens = static_cast<double>(b * c);
  const int needed = SelectNLayersNeeded(p, tokens);
  e.fits = tokens <= static_cast<double>(p.kv_blocks * (p.block_bytes / p.token_kv));
  e.tpot = t.Total(o.model.layers);
  if (needed > 0 && p.min_interval > 0) {
    e.interval = std::max(p.min_interval, p.layers / std::min(needed, p.layers));
    const BytesPerSecond bw = p.pcie / static_cast<double>(std::max(1, o.offload.gpus_per_pcie_bus));
    e.tpot += IntervalStall(e.interval, p.layers, t.per_layer, SelectNLayerTransfer(p, tokens) / bw);
  }
  e.feasible = e.fits && e.tpot <= Seconds(o.slo.tpot_s);
  return e;
}

}  // namespace

PerformanceRecord PerformanceRecord::Build(const ServeOptions& o, const MemoryPlan& plan,
                                           const IterationCostModel& cost) {
  PerformanceRecord r;
  r.max_batch_ = std::max(1, o.scheduler.max_batch_size);
  r.contexts_ = ContextGrid(o);
  r.entries_.reserve(r.contexts_.size() * r.max_batch_);
  for (int64_t c : r.contexts_) {
    int64_t cap = 0;
    bool prefix = true;
    for (int64_t b = 1; b <= r.max_batch_; ++b) {
      r.entries_.push_back(Evaluate(o, plan, cost, b, c));
      prefix = prefix && r.entries_.back().feasible;
      if (prefix) cap = b;
    }
    r.cap_.push_back(std::max<int64_t>(1, cap));
  }
  return r;
}

size_t PerformanceRecord::ContextIndex(int64_t context) const {
  const auto it = std::lower_bound(contexts_.begin(), contexts_.end(), context);
  return it == contexts_.end() ? contexts_.size() - 1 : static_cast<size_t>(it - contexts_.begin());
}

int64_t PerformanceRecord::MaxBatch(int64_t context) const { return cap_[ContextIndex(context)]; }

const RecordEntry& PerformanceRecord::At(int64_t batch, int64_t context) const {
  const int64_t b = std::clamp<int64_t>(batch, 1, max_batch_);
  return entries_[ContextIndex(context) * max_batch_ + (b - 1)];
}

}  // namespace dlsim::serve
