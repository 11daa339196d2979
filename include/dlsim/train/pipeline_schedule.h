// Pipeline schedules: the order in which each pipeline rank runs the forward and backward
// passes of its micro-batches and model chunks, exactly as Megatron-LM orders them.
//
//   auto s = registry.Create("1f1b");
//   auto order = (*s)->Order({.stages = 4, .chunks = 1, .micro_batches = 8});
//   // order.value()[rank] = {F0, F1, F2, F3, B0, F4, B1, ...}
//
// Policies are stateless and thread-safe.
#ifndef DLSIM_TRAIN_PIPELINE_SCHEDULE_H_
#define DLSIM_TRAIN_PIPELINE_SCHEDULE_H_

#include <memory>
#include <string_view>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"

namespace dlsim::train {

struct PipeTask {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  // model chunk (virtual stage) on this rank, 0-based
  bool operator==(const PipeTask&) const = default;
};

struct PipeShape {
  int stages = 1;         // pipeline-parallel size p
  int chunks = 1;         // virtual stages per rank v
  int micro_batches = 1;  // m
};

using PipeOrder = std::vector<std::vector<PipeTask>>;  // [rank][position]

class PipelineSchedule {
 public:
  virtual ~PipelineSchedule() = default;
  // The per-rank order; an error (a reason, not a crash) when the shape is not supported,
  // e.g. interleaving with micro-batches not divisible by the stage count.
  virtual Result<PipeOrder> Order(const PipeShape& shape) const = 0;
  virtual std::string_view name() const = 0;
};

using PipelineScheduleRegistry = Registry<PipelineSchedule>;
// Registers "gpipe", "1f1b" and "interleaved".
void RegisterPipelineSchedules(PipelineScheduleRegistry& reg);

// Global chunk index (model order) of local chunk `chunk` on rank `rank`: chunk * p + rank.
inline int VirtualStage(int rank, int chunk, int stages) { return chunk * stages + rank; }

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_PIPELINE_SCHEDULE_H_
