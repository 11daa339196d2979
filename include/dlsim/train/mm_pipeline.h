// The dynamic interleaved pipeline of a multimodal model (PipeWeaver, arXiv 2504.14145) and its step
// emulator (the paper's SEMU), built on dlsim's own step simulation (step_sim.h): a schedule is a partition
// of the model's unit chain (MultimodalCostModel::chain: vision layers, projector, LLM layers) into pp x
// chunks virtual stages, placed round robin on the pipeline ranks (virtual stage j on rank j mod pp, as
// Megatron-LM's interleaving) and ordered by the registry's "interleaved" schedule ("1f1b" for one chunk).
// Emulate() prices every (stage, micro-batch) task from the micro-batch's own contents and runs SimulateStep.
//
// Subgraph reuse: identical (stage, micro-batch) subgraphs cost the same, so the emulator caches
//   - unit costs per micro-batch content (images, sorted sample lengths): the cost-model pricing;
//   - stage task costs per (unit kinds of the stage, micro-batch content): spatial reuse (stages with the
//   same
//     layers) and temporal reuse (the same micro-batch in another candidate or another batch);
//   - whole-step results per (partition, batch content): candidates the search revisits.
// Reuse never changes a result: an emulator with reuse off computes every cost afresh and returns the same.
//
//   MmEmulator emu(cost, /*pp=*/8);
//   MmPartition part = EvenPartition(cost.units(), 8, 2);
//   MmStep s = emu.Emulate(part, batch);            // s.step, s.bubble
//   emu.stats().stage_hits / emu.stats().stage_lookups;
//
// Not thread-safe (the caches); one emulator per thread.
#ifndef DLSIM_TRAIN_MM_PIPELINE_H_
#define DLSIM_TRAIN_MM_PIPELINE_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dlsim/core/units.h"
#include "dlsim/model/multimodal.h"
#include "dlsim/train/multimodal_cost.h"
#include "dlsim/train/pipeline_schedule.h"

namespace dlsim::train {

// A schedule of the dynamic interleaved pipeline: `chunks` virtual stages per rank; units[j] consecutive
// chain units on virtual stage j (model order, pp * chunks entries, each >= 1, summing to the chain's
// length).
struct MmPartition {
  int chunks = 1;
  std::vector<int> units;
  bool operator==(const MmPartition&) const = default;
  bool operator<(const MmPartition& o) const { return std::tie(chunks, units) < std::tie(o.chunks, o.units); }
  std::string ToString() const;  // "v2: 12|12|11|10 / 9|..." (ranks of a chunk joined by |, chunks by /)
};

// One batch: its micro-batches (each a list of samples), in order.
struct MmBatch {
  std::vector<std::vector<model::MultimodalSample>> micro_batches;
};

// Units spread evenly over pp * chunks stages (train::BalancedLayerPlacement): Megatron-LM's default split.
MmPartition EvenPartition(int units, int pp, int chunks);
// Whether `p` is a partition of `units` units for `pp` ranks (sizes, positivity, sum).
bool IsValidPartition(const MmPartition& p, int units, int pp);

struct MmStep {
  Duration step;      // the pipeline's makespan (first forward to last backward)
  double bubble = 0;  // 1 - busy / (pp x step), busy = compute and exposed TP communication
  std::vector<Duration> rank_busy;
  bool feasible = true;  // false: the schedule does not run (e.g. interleaving with micro-batches % pp != 0)
  std::string reason;
};

struct MmEmulatorStats {
  int64_t emulations = 0;                     // Emulate calls
  int64_t step_lookups = 0, step_hits = 0;    // whole-step reuse
  int64_t stage_lookups = 0, stage_hits = 0;  // (stage, micro-batch) subgraph reuse
  int64_t price_lookups = 0, price_hits = 0;  // unit costs per micro-batch content
  int64_t simulations = 0;                    // SimulateStep runs
  double HitRate() const;                     // stage + price + step hits over lookups
};

class MmEmulator {
 public:
  // `reuse` false: every cost is computed afresh (the reference for the cache tests).
  MmEmulator(const MultimodalCostModel& cost, int pp, bool reuse = true);

  MmStep Emulate(const MmPartition& p, const MmBatch& batch);
  // Forward + backward time of every virtual stage summed over the batch's micro-batches (the load a stage
  // puts on its rank), for search heuristics; same caches.
  std::vector<Duration> StageLoads(const MmPartition& p, const MmBatch& batch);
  // Per-unit forward + backward time summed over the batch's micro-batches (extras included with their unit).
  std::vector<Duration> UnitLoads(const MmBatch& batch);

  const MmEmulatorStats& stats() const { return stats_; }
  void ResetStats() { stats_ = {}; }
  const MultimodalCostModel& cost() const { return cost_; }
  int pp() const { return pp_; }

 private:
  // A micro-batch's content: total images and its samples' LLM sequence lengths, sorted.
  struct Content {
    int images = 0;
    std::vector<int64_t> lengths;
    bool operator<(const Content& o) const {
      return std::tie(images, lengths) < std::tie(o.images, o.lengths);
    }
  };
  struct StageTask {
    TaskCost fwd, bwd;
  };
  Content ContentOf(const std::vector<model::MultimodalSample>& mb) const;
  // The unit costs of `mb` and its content id (-1 without reuse).
  MmUnitCosts UnitCosts(const std::vector<model::MultimodalSample>& mb, int* content_id);
  StageTask Stage(int first, int count, const MmUnitCosts& c, int content_id);
  Result<PipeOrder> OrderFor(int chunks, int micro_batches);
  // Prices every (stage, micro-batch) task of `p` and runs the step.
  MmStep Simulate(const MmPartition& p, const PipeOrder& order, const std::vector<MmUnitCosts>& costs,
                  const std::vector<int>& ids);

  const MultimodalCostModel& cost_;
  const int pp_;
  const bool reuse_;
  PipelineScheduleRegistry schedules_{"pipeline-schedule"};
  std::map<Content, int> content_ids_;
  std::vector<MmUnitCosts> priced_;  // by content id
  std::map<std::pair<std::array<int, kMmUnitKinds>, int>, StageTask> stages_;
  std::map<std::pair<MmPartition, std::vector<int>>, MmStep> steps_;
  std::map<std::pair<int, int>, PipeOrder> orders_;
  MmEmulatorStats stats_;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_MM_PIPELINE_H_
