// Prices the forward and backward pass of one model chunk (the layers of one virtual stage)
// for one micro-batch on one GPU, applying tensor, sequence and context parallelism to the
// operator graph of model/layer_graph.h, and sizes what the chunk keeps in memory.
//
// A micro-batch is described by what each GPU of its context-parallel group computes
// (data::Load: tokens through per-token operators and core-attention blocks). Uniform
// batches use UniformLoad(); data-aware runs pass each micro-batch's own loads.
// Thread-compatible; Get() of uniform costs is O(1).
#ifndef DLSIM_TRAIN_CHUNK_COST_H_
#define DLSIM_TRAIN_CHUNK_COST_H_

#include <vector>

#include "dlsim/data/step_data.h"
#include "dlsim/model/layer_graph.h"
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

// The load of one GPU when every row is a full sequence of seq_len tokens: with context
// parallelism, the load-balanced causal split (chunks i and 2cp-1-i of 2cp).
data::Load UniformLoad(const ParallelPlan& plan, bool causal);

class ChunkCostModel {
 public:
  ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx);
  // Costs of the uniform micro-batch.
  const ChunkCosts& Get(int rank, int chunk) const { return costs_[chunk * plan_.pp + rank]; }
  // Costs of a micro-batch with its own contents on every virtual stage (index chunk * pp +
  // rank): the slowest CP rank sets the pace; memory is the largest of any CP rank.
  std::vector<ChunkCosts> Price(const data::MicroBatch& mb) const;
  // Bytes per token of K and V (together), and of Q, on one GPU (after TP): turns the
  // token counts of data policies into bytes (data::ApplyTokenBytes).
  Bytes KvBytesPerToken() const;
  Bytes QBytesPerToken() const;
  Duration p2p_time() const { return p2p_; }
  double layer_params() const { return layer_params_; }

 private:
  struct LayerCost {
    TaskCost fwd, bwd;
    Duration recompute;
    Bytes saved, saved_full_recompute;
    Flops fwd_flops, recompute_flops;
  };
  struct LoadCosts {
    LayerCost layer, embed, head;
  };
  LoadCosts PriceLoad(const data::Load& load) const;
  // Costs of `ops` (one layer when `layer`, else the embedding or the head) on one GPU for `load`: the
  // operators, then tensor- and context-parallel communication, the host floor and recomputation.
  LayerCost PriceOps(const std::vector<model::Op>& ops, const data::Load& load, bool layer) const;
  // Adds the recomputation mode's re-run forward (`attn_flops` under selective) to the backward of `lc`, and
  // under full recomputation sizes the kept layer input of `tokens` tokens.
  void FoldRecompute(LayerCost& lc, double tokens, Flops attn_flops, bool layer) const;
  ChunkCosts Assemble(const LoadCosts& lc, int rank, int chunk) const;

  const TrainOptions& o_;
  const ParallelPlan& plan_;
  const StepContext& ctx_;
  std::vector<model::Op> layer_ops_, embed_ops_, head_ops_;
  std::vector<ChunkCosts> costs_;
  Duration p2p_;
  double layer_params_ = 0;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CHUNK_COST_H_
