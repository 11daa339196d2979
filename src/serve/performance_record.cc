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

// Every batch up to 64, then about 10% more each step, up to max_batch_size (included).
std::vector<int64_t> BatchGrid(int64_t max_batch) {
  std::vector<int64_t> grid;
  for (int64_t b = 1; b <= std::min<int64_t>(64, max_batch); ++b) grid.push_back(b);
  while (grid.back() < max_batch) grid.push_back(std::min(max_batch, grid.back() * 11 / 10 + 1));
  return grid;
}

RecordEntry Evaluate(const ServeOptions& o, const MemoryPlan& p, const IterationCostModel& cost, int64_t b,
                     int64_t c) {
  RecordEntry e{.batch = b, .context = c};
  const IterationTime t = cost.Time(BatchShape::Decode(b, b * c));
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
  r.batches_ = BatchGrid(std::max(1, o.scheduler.max_batch_size));
  r.contexts_ = ContextGrid(o);
  r.entries_.reserve(r.contexts_.size() * r.batches_.size());
  for (int64_t c : r.contexts_) {
    int64_t cap = 0;
    bool prefix = true;
    for (int64_t b : r.batches_) {
      r.entries_.push_back(Evaluate(o, plan, cost, b, c));
      prefix = prefix && r.entries_.back().feasible;
      if (prefix) cap = b;
    }
    r.cap_.push_back(std::max<int64_t>(1, cap));
  }
  return r;
}

namespace {

// The index of the smallest grid value >= v (the last when none is).
size_t CeilIndex(const std::vector<int64_t>& grid, int64_t v) {
  const auto it = std::lower_bound(grid.begin(), grid.end(), v);
  return it == grid.end() ? grid.size() - 1 : static_cast<size_t>(it - grid.begin());
}

}  // namespace

int64_t PerformanceRecord::MaxBatch(int64_t context) const { return cap_[CeilIndex(contexts_, context)]; }

const RecordEntry& PerformanceRecord::At(int64_t batch, int64_t context) const {
  return entries_[CeilIndex(contexts_, context) * batches_.size() + CeilIndex(batches_, batch)];
}

}  // namespace dlsim::serve
