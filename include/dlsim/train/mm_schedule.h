// Schedule policies of the dynamic interleaved pipeline (mm_pipeline.h), registry "mm-schedule": how a
// multimodal model's unit chain is cut into virtual stages, once for the dataset or per batch.
//
//   MmSchedulePolicyRegistry reg("mm-schedule");
//   RegisterMmSchedulePolicies(reg);
//   auto policy = *reg.Create("pipeweaver", MmSearchOptions{});
//   DLSIM_RETURN_IF_ERROR(policy->Prepare(emu, calibration_batches));   // the static start, once
//   Result<MmDecision> d = policy->Schedule(emu, batch);                // per batch
//
// Policies:
//   megatron-even  Megatron-LM's default: units spread evenly over the pp x v virtual stages, the v of
//                  search.chunks with the best calibration time; the same partition for every batch.
//   static-best    the best static partition with Megatron-style interleaving, chosen once: the hierarchical
//                  search below with the objective summed over the calibration batches (the dataset sample).
//   pipeweaver     PipeWeaver (arXiv 2504.14145): per batch, the hierarchical search from static-best's
//                  partition, with this batch's emulated step time as the objective.
//
// The hierarchical search (coarse to fine; our reading of the paper, whose details are not public):
//   1. module ordering: how the modules form the pipeline's segments. Data flows vision -> projector -> LLM,
//      so the order of the segments is fixed for a single-encoder model; the level chooses which segment the
//      projector joins (the vision encoder's or the LLM's).
//   2. stage interleaving: the interleaving depth v (search.chunks) and how many of the pp x v virtual stages
//      each segment gets (modality-aware partitioning: a stage holds one segment's units, split so that its
//      stages carry equal emulated work for the objective's batches); stages wrap round robin over the ranks,
//      so every rank holds stages of both modules when v > 1. Every (ordering, v, split) is emulated; the
//      best `keep` go on, with the start partition and the even splits.
//   3. layer moves: from each of them, move one unit across one stage boundary, or through a stage to the
//      stage beyond it (any boundary, so a stage may end up holding units of two modules), trying the moves
//      out of the stages of the busiest rank first (the first move_scan of them), and keep the first move
//      that lowers the objective; repeat until no move helps or max_moves.
// A space of at most exhaustive_limit partitions is enumerated instead (exact).
// The result is the best partition seen, never worse than the start (the start is a candidate).
//
// Policies keep their static partition between Prepare and Schedule: one instance per scenario; not
// thread-safe.
#ifndef DLSIM_TRAIN_MM_SCHEDULE_H_
#define DLSIM_TRAIN_MM_SCHEDULE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/train/mm_pipeline.h"

namespace dlsim::train {

struct MmSearchOptions {
  std::vector<int> chunks = {1, 2, 4};  // interleaving depths v tried (v > 1 needs micro-batches % pp == 0)
  int keep = 2;                         // level-2 candidates refined by layer moves
  int max_moves = 200;                  // accepted layer moves per candidate
  int move_scan = 0;                    // moves tried per step, in the heuristic's order (0: all)
  // When the whole space (every contiguous partition for every v: sum of C(units - 1, pp v - 1)) holds at
  // most this many partitions, the search emulates all of them instead (exact; cheaper than the levels on
  // tiny models). 0: always the hierarchical search.
  int64_t exhaustive_limit = 4096;
};

struct MmDecision {
  MmPartition partition;
  MmStep step;              // of the decision on the batch it was made for
  int64_t evaluations = 0;  // objective evaluations (each emulates every batch of the objective)
  double search_ms = 0;     // wall time of the decision (machine-dependent)
  std::string found_by;     // "start", "ordering+interleaving", "layer moves", "exhaustive"
};

class MmSchedulePolicy {
 public:
  virtual ~MmSchedulePolicy() = default;
  // Chooses what the policy keeps across batches from `calibration` (the dataset sample). Errors: no
  // calibration batch, or no partition of search.chunks runs (kInfeasible, with the reason).
  virtual Status Prepare(MmEmulator& emu, const std::vector<MmBatch>& calibration) = 0;
  // The partition for `batch` (Prepare first).
  virtual Result<MmDecision> Schedule(MmEmulator& emu, const MmBatch& batch) = 0;
  virtual std::string_view name() const = 0;
};

using MmSchedulePolicyRegistry = Registry<MmSchedulePolicy, const MmSearchOptions&>;
// Registers "megatron-even", "static-best" and "pipeweaver".
void RegisterMmSchedulePolicies(MmSchedulePolicyRegistry& reg);

// The hierarchical search of the file comment over `batches` (objective: the sum of their emulated step
// times), from `start` (may be null). Error (kInfeasible) when no candidate runs.
Result<MmDecision> SearchPartition(MmEmulator& emu, const std::vector<const MmBatch*>& batches,
                                   const MmPartition* start, const MmSearchOptions& o);

// Every partition of the chain into pp x v contiguous non-empty stages for each v of `chunks` (C(units - 1,
// pp v - 1) of them), emulated on `batch`: the exact optimum, for tests on tiny models. `limit` caps the
// partitions enumerated (kInvalidArgument beyond it).
Result<MmDecision> BruteForcePartition(MmEmulator& emu, const MmBatch& batch, const std::vector<int>& chunks,
                                       int64_t limit = 200000);

// Units of the vision module in each virtual stage of `p` (the projector and LLM units not counted): where
// the encoder's layers sit.
std::vector<int> VisionUnitsPerStage(const MultimodalCostModel& cost, const MmPartition& p);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_MM_SCHEDULE_H_
