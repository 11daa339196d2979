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

#include <map>
#include <utility>
#include <vector>

#include "dlsim/data/step_data.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/expert_routing.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_context.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {

struct ChunkCosts {
  TaskCost forward;
  TaskCost backward;         // includes recomputation under the chosen mode
  double params = 0;         // parameters held by one GPU for this chunk, routed experts excluded
  double expert_params = 0;  // routed-expert parameters held by one GPU (reduced over edp, not dp)
  double end_params = 0;     // of params: the embedding and output head's (no FP8 copy under FP8)
  // Of params: an input embedding table only looked up, no linear's weight (untied, or a tied table on the
  // first of several stages): autocast casts every other weight at each use.
  double lookup_params = 0;
  Bytes activations;  // stored per micro-batch in flight
  // Held once per stage while a document's micro-batches run, not per micro-batch in flight: the
  // prefix K/V state of a chunked document and its gradients (data::Load::prefix_kv_tokens).
  Bytes resident_state;
  Bytes recompute_working_set;  // extra activations while one layer is being recomputed
  Flops model_flops;            // forward + backward, no recomputation, one GPU
  Flops hardware_flops;         // including recomputation
};

// The load of one GPU when every row is a full sequence of seq_len tokens: with context
// parallelism, the load-balanced causal split (chunks i and 2cp-1-i of 2cp).
data::Load UniformLoad(const ParallelPlan& plan, bool causal);

// Expert-parallel volumes of one MoE layer on one GPU (closed form, docs/models.md#mixture-of-experts):
// each of the tokens_per_gpu tokens (after the sequence-parallel split) is dispatched to top_k experts,
// so the dispatch all-to-all sends tokens_per_gpu * top_k * hidden * act_bytes bytes (own share
// included, the nccl-tests convention), the combine all-to-all returns as much, and the backward
// repeats both: 4 all-to-alls per layer per micro-batch. A balanced shard computes tokens_per_gpu *
// etp * top_k routed copies (its etp GPUs gather what their expert-parallel peers send).
// With a capacity factor, the balanced shard computes at most experts/ep times the per-expert capacity.
struct MoeVolumes {
  ExpertGroup group;  // the expert-parallel group of one micro-batch (tokens_per_gpu: after the sp split)
  int64_t balanced_shard_tokens = 0;
  Bytes dispatch_bytes;  // one all-to-all, per GPU
};
MoeVolumes MoeLayerVolumes(const model::ModelSpec& m, const ParallelPlan& plan, int64_t tokens,
                           double act_bytes);

// The compute model's memory kind of a memory-bound operator's access pattern: what every pricer of model::Op
// (this model, the sharding planner) passes to ComputeModel::MemoryBound.
cost::MemoryKind MemoryKindOf(model::Access access);

class ChunkCostModel {
 public:
  // `cp_attention` (borrowed, may be null): the layers' core self/joint attention and its context-parallel
  // communication as a layout policy priced them (context_parallel.h; UsesCpLayout(o)); null: the default
  // ring path below. A diffusion transformer (arch dit) is priced from model/dit.h's operators: its text
  // stream, cross- and joint attention, and its single-stream blocks.
  ChunkCostModel(const TrainOptions& o, const ParallelPlan& plan, const StepContext& ctx,
                 const CpAttentionPlan* cp_attention = nullptr);
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
  Bytes p2p_bytes() const { return p2p_bytes_; }  // one micro-batch's activation on one GPU (after TP)
  double layer_params() const { return layer_params_; }

  // Cost of one layer (or the embedding / head) for one micro-batch on one GPU.
  struct LayerCost {
    TaskCost fwd, bwd;
    Duration recompute;
    Bytes saved, saved_full_recompute;
    Flops fwd_flops, recompute_flops;
  };
  // MoE layer costs by the routed copies the slowest expert shard computes, filled on demand by
  // PriceRouted (one cache per caller keeps the model thread-compatible).
  using RoutedCache = std::map<int64_t, LayerCost>;
  // Costs of the uniform micro-batch on every virtual stage (index chunk * pp + rank) when MoE layer i
  // (0-based among the MoE layers, model order) has its slowest expert shard compute
  // shard_tokens[i] routed copies; shard_tokens[i] == MoeLayerVolumes().balanced_shard_tokens for
  // every i gives exactly the costs of Get().
  std::vector<ChunkCosts> PriceRouted(const std::vector<int64_t>& shard_tokens, RoutedCache& cache) const;
  const MoeVolumes& moe_volumes() const { return moe_; }
  // The uniform micro-batch's costs of one transformer layer (a dense one for MoE models) and of the
  // final norm + head + loss, on one GPU: the per-layer prices a scheduler of layer groups needs
  // (multitask/scalability.h) without a chunk's embedding or head around them.
  const LayerCost& uniform_layer_cost() const { return uniform_.layer; }
  const LayerCost& uniform_head_cost() const { return uniform_.head; }
  // The uniform micro-batch's MoE block of one MoE layer on one GPU at balanced routing (model::
  // BuildMoeBlockOps: router, shared and routed experts, the expert-parallel all-to-all; no attention, norms
  // or residual), with the layer's host floor: what a benchmark of Megatron-Core's MoELayer alone times.
  // Precondition: a MoE model.
  LayerCost MoeBlockCost() const;

  // Costs of `ops` (one layer when `layer`, else the embedding or the head) on one GPU for `load`: the
  // operators, then tensor- and context-parallel communication, the host floor and recomputation. What Get()
  // and Price() assemble chunks from; public so that models built of several modules (model/multimodal.h)
  // price their own layers the same way. `attention`: a context-parallel layout policy's core attention of
  // this layer (train/context_parallel.h), added before the host floor and recomputation.
  LayerCost PriceOps(const std::vector<model::Op>& ops, const data::Load& load, bool layer,
                     int64_t shard_tokens = 0, const CpLayerCost* attention = nullptr) const;

 private:
  struct LoadCosts {
    LayerCost layer, embed, head;
    LayerCost moe;     // a MoE layer at balanced routing (MoE models)
    LayerCost single;  // a DiT single-stream block after double-stream ones (MMDiT)
  };
  // MoE layers of a virtual stage, grouped by cost: (cost, how many layers).
  using MoeGroups = std::vector<std::pair<const LayerCost*, int>>;
  LoadCosts PriceLoad(const data::Load& load) const;
  // Adds `a` to the layer's costs and its FLOPs to `attn_flops` (what selective recomputation re-runs).
  void AddCpAttention(const CpLayerCost& a, LayerCost& lc, Flops& attn_flops) const;
  // Adds the recomputation mode's re-run forward (`attn_flops` under selective) to the backward of `lc`, and
  // under full recomputation sizes the kept layer input of `tokens` tokens.
  void FoldRecompute(LayerCost& lc, double tokens, Flops attn_flops, bool layer) const;
  // `moe`: the stage's MoE layers by cost; null: all at lc.moe.
  ChunkCosts Assemble(const LoadCosts& lc, int rank, int chunk, const MoeGroups* moe = nullptr) const;
  // MoE layers (count) among the layers of a virtual stage, and the index of its first one.
  int MoeLayersOf(int rank, int chunk, int* first_moe) const;
  // DiT single-stream blocks among the layers of a virtual stage when the first blocks are double-stream.
  int SingleLayersOf(int rank, int chunk) const;
  // Every layer's costs with its layout-policy attention (layer_costs_).
  void PriceCpLayers();
  // A DiT's embedding (first stage) and final layer (last stage): compute, memory, parameters, FLOPs.
  void AddDitEnds(const LoadCosts& lc, bool first, bool last, ChunkCosts& c) const;

  const TrainOptions& o_;
  const ParallelPlan& plan_;
  const StepContext& ctx_;
  std::vector<model::Op> layer_ops_, embed_ops_, head_ops_, moe_ops_, single_ops_;
  const CpAttentionPlan* cp_attention_ = nullptr;
  std::vector<LayerCost> layer_costs_;  // per model layer, with cp_attention_
  double single_layer_params_ = 0, embed_params_ = 0, head_params_ = 0;  // per GPU
  std::vector<ChunkCosts> costs_;
  data::Load uniform_load_;
  LoadCosts uniform_;
  MoeVolumes moe_;
  double moe_layer_params_ = 0, expert_layer_params_ = 0;  // per GPU, one MoE layer
  Duration p2p_;
  Bytes p2p_bytes_;
  double layer_params_ = 0;
  // The stack's host time per layer is measured on one layer structure; eager layers issue it in proportion
  // to their PyTorch operators (model::EagerHostScale); 1 otherwise.
  double host_scale_ = 1;
};

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CHUNK_COST_H_
