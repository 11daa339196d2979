// Select-N's offline performance record and the admission limit it gives.
//
// For every (decode batch b, mean context c) of a grid, the record holds the decode iteration's
// TPOT with the offloading that b requests of c tokens force: the layers whose state must live in
// host memory (SelectNLayersNeeded), the interval that leaves (at least the plan's i_min), and the
// per-layer stall with the PCIe bus shared by offload.gpus_per_pcie_bus GPUs (the worst case the
// offline stage assumes). An entry is feasible when the KV fits the plan's cache and the TPOT meets
// slo.tpot_s. Online, the controller admits requests only up to MaxBatch(context).
//
// Grid: b = 1..64, then about 10% more each step up to scheduler.max_batch_size; c = 64, then
// about 10% more each step (rounded up to 16 tokens), up to the first value >= workload.prompt.max +
// workload.output.max. Both grids grow geometrically, so the record stays small (about 18,000
// entries at the largest allowed batch and context).
//
//   auto record = serve::PerformanceRecord::Build(options, plan, cost);
//   int64_t cap = record.MaxBatch(/*context=*/900);
//
// Immutable after Build; thread-safe for concurrent const use.
#ifndef DLSIM_SERVE_PERFORMANCE_RECORD_H_
#define DLSIM_SERVE_PERFORMANCE_RECORD_H_

#include <cstdint>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/serve/iteration_cost.h"
#include "dlsim/serve/offload.h"
#include "dlsim/serve/options.h"

namespace dlsim::serve {

struct RecordEntry {
  int64_t batch = 0;
  int64_t context = 0;  // mean KV tokens per request
  Duration tpot;        // decode iteration time with its offloading stall
  int interval = 0;     // 0: nothing offloaded
  bool fits = false;    // the KV fits the plan's cache
  bool feasible = false;
};

class PerformanceRecord {
 public:
  static PerformanceRecord Build(const ServeOptions& o, const MemoryPlan& plan,
                                 const IterationCostModel& cost);

  // The largest grid batch b such that every entry with batch <= b at the smallest grid context >=
  // `context` is feasible; at least 1 (a lone request always runs), at most max_batch_size.
  int64_t MaxBatch(int64_t context) const;
  // The entry of (the smallest grid batch >= batch, the smallest grid context >= context), both
  // clamped to the grid's last value.
  const RecordEntry& At(int64_t batch, int64_t context) const;
  const std::vector<RecordEntry>& entries() const { return entries_; }
  const std::vector<int64_t>& contexts() const { return contexts_; }
  const std::vector<int64_t>& batches() const { return batches_; }

 private:
  std::vector<int64_t> batches_;
  std::vector<int64_t> contexts_;
  std::vector<RecordEntry> entries_;  // context-major: entries_[ci * batches_.size() + bi]
  std::vector<int64_t> cap_;          // MaxBatch per context index
};

}  // namespace dlsim::serve

#endif  // DLSIM_SERVE_PERFORMANCE_RECORD_H_
