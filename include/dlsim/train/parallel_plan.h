// A resolved parallel layout: degrees, micro-batch count and the placement of layers on
// pipeline ranks and virtual stages.
//
// Layer placement (docs/models.md): virtual stage j (model order, j = chunk * pp + rank)
// holds layers_per_stage[j] consecutive layers. By default layers are spread evenly; when
// they do not divide, every virtual stage gets ceil(L / S) layers and the surplus is taken
// away alternately from the first and the last virtual stage (which also carry the
// embedding and the LM head), as in the Llama 3 405B run (126 layers on 16 stages: 7, 8, ...,
// 8, 7). A scenario can give layers_per_stage explicitly.
#ifndef DLSIM_TRAIN_PARALLEL_PLAN_H_
#define DLSIM_TRAIN_PARALLEL_PLAN_H_

#include <string>
#include <vector>

#include "dlsim/core/result.h"
#include "dlsim/train/options.h"

namespace dlsim::train {

struct ParallelPlan {
  int tp = 1, pp = 1, cp = 1, dp = 1;
  // Expert layout of a pipeline stage (MoE): etp * ep * edp == tp * cp * dp; 1, 1, dp for dense models.
  int ep = 1, etp = 1, edp = 1;
  int chunks = 1;         // virtual stages per pipeline rank
  int micro_batch = 1;    // sequences per micro-batch
  int micro_batches = 1;  // per pipeline per step (gradient accumulation steps)
  int seq_len = 0;
  bool sequence_parallel = false;
  std::vector<int> layers;  // per virtual stage, model order (pp * chunks entries)

  int VirtualStages() const { return pp * chunks; }
  // The ranks that hold the same dense weights: data- and context-parallel ranks together. Context-parallel
  // ranks compute partial gradients over their shares of the sequence, so gradients are reduced, and ZeRO
  // shards states, over dp x cp (Megatron-Core's data-parallel group "with context parallel").
  int WeightGroup() const { return dp * cp; }
  int LayersOf(int rank, int chunk) const { return layers[chunk * pp + rank]; }
  // The model index of the first layer of a virtual stage.
  int FirstLayerOf(int rank, int chunk) const;
  bool IsFirst(int rank, int chunk) const { return rank == 0 && chunk == 0; }
  bool IsLast(int rank, int chunk) const { return rank == pp - 1 && chunk == chunks - 1; }
};

// Resolves the plan. Error (kInfeasible): the first rule of CheckLayout (layout_check.h) that
// `o` breaks, as "key: message" (the product of degrees differs from the GPU count, the batch
// does not divide, heads do not divide by tp, more virtual stages than layers, ...).
Result<ParallelPlan> MakeParallelPlan(const TrainOptions& o);

// Default placement of `layers` on `stages` virtual stages (see the file comment).
std::vector<int> BalancedLayerPlacement(int layers, int stages);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_PARALLEL_PLAN_H_
