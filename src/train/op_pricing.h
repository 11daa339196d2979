// The pricing of one chunk's operators on one GPU (chunk_cost.cc), shared by the files that price parts of
// it: GEMMs and memory-bound operators (op_pricing.cc), the core attention (attention_pricing.cc) and the
// exposed communication of a pass (layer_comm.cc).
// Internal to the train module.
#ifndef DLSIM_SRC_TRAIN_OP_PRICING_H_
#define DLSIM_SRC_TRAIN_OP_PRICING_H_

#include <cstdint>

#include "dlsim/core/units.h"
#include "dlsim/data/step_data.h"
#include "dlsim/model/layer_graph.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_context.h"

namespace dlsim::train::internal {

constexpr double kActBytes = 2.0;  // bf16/fp16 activations

inline Duration MaxZero(Duration d) { return d > Duration::Zero() ? d : Duration::Zero(); }

// What one PriceOps call prices against: the scenario, the GPU, the parallel widths and the load of one GPU.
struct Pricing {
  const TrainOptions& o;
  const StepContext& ctx;
  const data::Load& load;
  const ParallelPlan& plan;
  int t, cp;          // tensor- and context-parallel sizes
  bool sp, layer;     // sequence parallelism; pricing a transformer layer (not the embedding or the head)
  double tokens;      // tokens through one GPU's GEMMs
  hw::DType gemm_dt;  // GEMM precision
  hw::DType act_dt;   // attention precision (bf16 under fp8 training)
  // MoE layers: routed copies the priced expert shard computes (0: not a MoE layer), and the size of
  // one dispatch all-to-all on one GPU.
  int64_t shard_tokens = 0;
  Bytes dispatch_bytes;
  // Diffusion transformers: text tokens of this GPU (split over cp like the latent ones) and of the whole
  // micro-batch, its samples, the keys of a joint attention per sequence; and whether a context-parallel
  // layout policy prices the self/joint attention (then only its stored bytes are counted here).
  bool dit = false;
  double text_tokens = 0, text_whole = 0, samples = 0;
  int64_t joint_seq = 0;
  bool skip_core = false;
  double host_scale = 1;  // the layer's host time over ctx.layer_host_time (ChunkCostModel::host_scale_)
};

// The tokens an operator runs on (model::TokenSet) on one GPU, before any tensor-parallel split.
inline double OpTokens(const model::Op& op, const Pricing& p) {
  switch (op.tokens) {
    case model::TokenSet::kLayer:
      return p.tokens;
    case model::TokenSet::kText:
      return p.text_tokens;
    case model::TokenSet::kTextWhole:
      return p.text_whole;
    case model::TokenSet::kJoint:
      return p.tokens + p.text_tokens;
    case model::TokenSet::kSample:
      return p.samples;
  }
  return p.tokens;
}

// Whether sequence parallelism splits an operator's tokens over tp (those split along the sequence).
inline bool SequenceSplit(const model::Op& op) {
  return op.tokens == model::TokenSet::kLayer || op.tokens == model::TokenSet::kText ||
         op.tokens == model::TokenSet::kJoint;
}

// The cost of one operator on one GPU.
struct OpCost {
  Duration fwd, bwd;
  Duration recompute;  // forward time re-run in the backward (selective recomputation)
  double saved = 0;    // bytes kept for the backward
  Flops flops;         // what the operator adds to the layer's forward FLOPs
};

// Running sums over the operators of one PriceOps call, which communication overlaps with.
struct OverlapSums {
  Duration gemm_fwd, attn_fwd, attn_bwd;
  Flops attn_flops;  // core-attention forward FLOPs so far
};

// Exposed communication of one forward and one backward pass.
struct PassComm {
  Duration fwd, bwd;
};

// One GEMM with its weight split over the TP ranks (a routed expert's over the expert-TP ranks, on the
// shard's routed copies): forward, and the backward's data and weight gradients; adds to the running sums.
// And a memory-bound operator (norm, elementwise, gather, permute), its tokens split over TP when sharded or
// sequence-parallel. op_pricing.cc.
OpCost PriceGemm(const model::Op& op, const Pricing& p, OverlapSums& sums);
OpCost PriceMemoryOp(const model::Op& op, const Pricing& p);

// Core attention over every block of the load (FlashAttention or unfused) with its heads split over TP, or a
// DiT's (self, joint, cross or the text refiner's). Adds to the running sums. attention_pricing.cc.
OpCost PriceAttention(const model::Op& op, const Pricing& p, OverlapSums& sums);

// Exposed communication of one layer's passes (layer_comm.cc): tensor-parallel collectives less what GEMM
// overlap hides (`dit_row_tokens`: a DiT layer's row-parallel GEMM tokens), the context-parallel ring, the
// attention servers' traffic (DistCA) and the expert-parallel all-to-alls.
PassComm TensorParallelComm(const Pricing& p, Duration gemm_fwd, double dit_row_tokens);
PassComm RingAttentionComm(const Pricing& p, const OverlapSums& sums);
PassComm AttentionServerComm(const Pricing& p, const OverlapSums& sums);
PassComm ExpertParallelComm(const Pricing& p);

}  // namespace dlsim::train::internal

#endif  // DLSIM_SRC_TRAIN_OP_PRICING_H_
