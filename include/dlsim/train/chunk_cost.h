// Prices the forward and backward pass of one model chunk (the layers of one virtual stage)
// for one micro-batch on one GPU, applying tensor, sequence and context parallelism to the
// operator graph of model/layer_graph.h, and sizes what the chunk keeps in memory.
//
// Costs are computed once per distinct chunk shape and cached; lookups are O(1).
// Thread-compatible.
#ifndef DLSIM_TRAIN_CHUNK_COST_H_
#define DLSIM_TRAIN_CHUNK_COST_H_

#include <vector>

#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_context.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

struct ChunkCosts {
  TaskCost forward;
  TaskCost backward;            // includes recomputation under the chosen mode
  double params = 0;            // parameters held by one GPU for this chunk
  Bytes activations;            // stored per micro-batch in flight
  Bytes recompute_working_set;  // extra activations while one layer is being recomputed
  Flops model_flops;            // forward + backward, no recomputation, one GPU
  Flops hardware_flops;         // including recomputation
};

class ChunkCostModel {
 public:
  ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx);
  const ChunkCosts& Get(int rank, int chunk) const { return costs_[chunk * plan_.pp + rank]; }
  // Tensor-parallel / context-parallel exposed time of one layer, forward + backward (report).
  Duration p2p_time() const { return p2p_; }
  double layer_params() const { return layer_params_; }

 private:
  struct LayerCost {
    TaskCost fwd, bwd;
    Duration recompute;
    Bytes saved, saved_full_recompute;
    Flops fwd_flops, recompute_flops;
  };
  LayerCost PriceLayer() const;
  LayerCost PriceOps(const std::vector<model::Op>& ops, bool layer) const;
  ChunkCosts Assemble(const LayerCost& layer, int layers, bool first, bool last) const;

  const TrainOptions& o_;
  const ParallelPlan& plan_;
  const StepContext& ctx_;
  LayerCost layer_, embed_, head_;
  std::vector<ChunkCosts> costs_;
  Duration p2p_;
  double layer_params_ = 0;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CHUNK_COST_H_
