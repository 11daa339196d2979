// Context-parallel layouts of non-causal core attention (issue 15; DSV, arXiv 2502.07590): how the cp ranks
// of a group split one layer's attention between head-wise partitioning (an all-to-all gives each rank whole
// heads: DeepSpeed-Ulysses) and sequence-wise partitioning (each rank keeps a share of the queries and the
// keys and values travel: Ring Attention), and what every rank then computes and exchanges, priced with the
// step's compute and collective models. The layouts are registry policies (parallel.cp_layout):
//   ring     sequence-wise only: u = 1, r = cp (for non-causal attention the same cost as the default ring
//            path of chunk_cost.h);
//   ulysses  head-wise only: u = cp, r = 1 (needs cp to divide the heads of a tensor-parallel rank);
//   hybrid   u head groups x r ring shards, u innermost (USP, the standard 2D context parallelism): u =
//            parallel.cp_ulysses, or by default the largest divisor of cp that divides the heads and fits
//            the ranks of a node;
//   dsv      DSV's hybrid sparsity-aware context parallelism: every u x r = cp is priced with the work
//            re-balanced (heads to groups by their work, longest first to the lightest group; optionally
//            query blocks to ring shards by their work within each group, equal counts; per layer the fastest
//            of standard, heads-only and heads-and-blocks) and only the key/value blocks a shard's queries
//            need exchanged; the u with the fastest layers wins.
// A rank's attention is dense FlashAttention or, under attention sparsity (attention_sparsity.h), DSV's
// sparse kernel plus its low-rank predictor; the formulas are in docs/dit.md#context-parallel-layouts.
//
//   CpLayoutRegistry reg("cp-layout");
//   RegisterCpLayouts(reg);
//   Result<CpAttentionPlan> p = PlanCpAttention(options, plan, ctx);  // what ChunkCostModel adds per layer
//
// Thread-compatible values; pure functions.
#ifndef DLSIM_TRAIN_CONTEXT_PARALLEL_H_
#define DLSIM_TRAIN_CONTEXT_PARALLEL_H_

#include <memory>
#include <string>
#include <vector>

#include "dlsim/core/registry.h"
#include "dlsim/core/result.h"
#include "dlsim/core/units.h"
#include "dlsim/train/attention_sparsity.h"
#include "dlsim/train/options.h"
#include "dlsim/train/parallel_plan.h"
#include "dlsim/train/step_context.h"

namespace dlsim::train {

// One layer's attention in the units the layouts split: density[h * blocks + b] is the fraction of the
// key-value pairs head h computes for query block b (1: dense). blocks is a multiple of cp.
struct AttentionWork {
  int heads = 0, blocks = 0;
  std::vector<double> density;
  double At(int h, int b) const { return density[static_cast<size_t>(h) * blocks + b]; }
  double HeadWork(int h) const;  // sum over the query blocks
  double Total() const;
  static AttentionWork Dense(int heads, int blocks);
};

// Who computes what on a u x r grid: rank (g, s) = g * ring + s holds the heads of group g and, for them,
// the query blocks of shard s.
struct CpAssignment {
  int ulysses = 1, ring = 1;
  std::vector<int> head_group;   // [head] -> 0..ulysses-1
  std::vector<int> block_shard;  // [group * blocks + block] -> 0..ring-1; every shard gets blocks / ring
  std::vector<double> RankWork(const AttentionWork& w) const;  // [rank]: sum of the densities it computes
  double Balance(const AttentionWork& w) const;                // largest rank work / mean (1: perfect)
  // Fraction of (group, block) entries away from their home shard (block b's home: b / (blocks / ring)).
  double MovedBlocks() const;
  int HeadsOf(int group) const;
};

// The standard assignment: contiguous head groups of heads / u (the remainder to the first groups),
// contiguous query blocks per shard.
CpAssignment StandardAssignment(int heads, int blocks, int ulysses, int ring);
// DSV's re-balanced assignment (see above): heads by their work and, with move_blocks, each group's query
// blocks by theirs (blocks off their home shard make the all-to-all span the whole cp group); never less
// balanced than StandardAssignment (it keeps the better of the two).
CpAssignment BalancedAssignment(const AttentionWork& w, int ulysses, int ring, bool move_blocks = true);

// What pricing a layout needs: the attention's shape per micro-batch on one tensor-parallel rank, the
// group and the models.
struct CpEnv {
  const StepContext* ctx = nullptr;
  int cp = 1, tp = 1;
  int64_t seq = 0;      // keys (and queries) of one sequence: latent tokens, plus text for joint attention
  int64_t samples = 1;  // sequences in the micro-batch
  int heads = 1;        // query heads of one tensor-parallel rank
  int kv_heads = 1;     // key/value heads of one tensor-parallel rank
  int head_dim = 128;
  int64_t hidden = 0;  // model width (the predictor's projection input)
  hw::DType dtype = hw::DType::kBf16;
  int requested_ulysses = 0;                  // hybrid: parallel.cp_ulysses (0: automatic)
  const SparsityOptions* sparsity = nullptr;  // null: dense attention, no predictor
};

// The forward and backward of one layer's attention on its slowest rank (the ranks run in lock step).
struct CpLayerCost {
  Duration attn_fwd, attn_bwd;  // attention kernels (dense, or sparse with the dense fallback)
  Duration predictor_fwd;       // DSV's predictor: low-rank projection, score estimation, top-k
  Duration a2a;                 // one all-to-all pass (Q, K, V in and O out; the backward repeats it)
  Duration ring;                // the key/value exchange of the forward (the backward sends twice as much)
  Duration fwd_compute, bwd_compute, fwd_comm, bwd_comm;  // what the step adds (comm: exposed)
  Bytes kv_bytes;  // key/value bytes the slowest rank receives in the forward
  double balance = 1;
  Flops flops;  // attention forward FLOPs the slowest rank computes
};
CpLayerCost PriceAssignment(const AttentionWork& w, const CpAssignment& a, const CpEnv& env);
// One layer's attention time in a step: forward and backward with their exposed communication, and the
// forward again when recomputation re-runs it (its communication too under full recomputation).
Duration StepAttentionTime(const CpLayerCost& c, Recompute recompute);

class CpLayoutPolicy {
 public:
  virtual ~CpLayoutPolicy() = default;
  // One assignment per layer, all on the same u x r grid; kInfeasible when the layout cannot split the
  // heads.
  virtual Result<std::vector<CpAssignment>> Assign(const std::vector<AttentionWork>& layers,
                                                   const CpEnv& env) const = 0;
};
using CpLayoutRegistry = Registry<CpLayoutPolicy>;
void RegisterCpLayouts(CpLayoutRegistry& reg);  // ring, ulysses, hybrid, dsv

// Whether a step prices its core attention through a layout policy (a cp_layout other than the default
// ring path, attention sparsity, or a DiT with cp > 1: its ring is then paced by its slowest hop), and the
// whole plan: per layer of the model, the assignment and cost.
bool UsesCpLayout(const TrainOptions& o);
struct CpAttentionPlan {
  std::string layout;
  int ulysses = 1, ring = 1;
  double mean_sparsity = 0;
  std::vector<CpAssignment> assignments;  // per layer
  std::vector<CpLayerCost> layers;        // per layer
};
Result<CpAttentionPlan> PlanCpAttention(const TrainOptions& o, const ParallelPlan& plan,
                                        const StepContext& ctx);

}  // namespace dlsim::train

#endif  // DLSIM_TRAIN_CONTEXT_PARALLEL_H_
