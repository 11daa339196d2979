// Prices a ShardingGraph's choices on one TP group with the training module's models (the compute
// model and the collective model of a train::StepContext), the way train/chunk_cost.cc prices
// Megatron's split: a GEMM's forward and its two backward GEMMs with the split dimension divided by
// tp; core attention with its heads divided; a memory-bound operator on its tokens divided by tp when
// its tensor is split; a resharding as the collective it needs on the full tensor's bytes. So the
// Megatron strategy's cost is the train module's per-layer compute plus TP communication.
//
//   plan::ShardingCostModel cost(ctx, {.tp = 8, .tokens = 2048, .seq = 2048});
//   Duration d = cost.Op(op, strategy);                         // forward + backward
//   Duration r = cost.Reshard(Layout::kPartial, Layout::kReplicated, 5120);   // an all-reduce
//
// Borrows the context (must outlive the model). Thread-safe (const).
#ifndef DLSIM_PLAN_SHARDING_SHARDING_COST_H_
#define DLSIM_PLAN_SHARDING_SHARDING_COST_H_

#include <optional>

#include "dlsim/core/units.h"
#include "dlsim/hw/gpu.h"
#include "dlsim/model/model_spec.h"
#include "dlsim/plan/sharding/sharding_graph.h"
#include "dlsim/train/step_context.h"

namespace dlsim::plan {

struct ShardingShape {
  int tp = 8;
  int64_t tokens = 2048;  // tokens of one micro-batch through the group
  int64_t seq = 2048;     // sequence length (attention)
  hw::DType dtype = hw::DType::kBf16;
};

class ShardingCostModel {
 public:
  ShardingCostModel(const train::StepContext& ctx, const model::ModelSpec& m, ShardingShape s)
      : ctx_(ctx), m_(m), s_(s) {}
  // Forward + backward of `op` under `st` on one GPU (a tokens-split GEMM adds its weight-gradient
  // all-reduce).
  Duration Op(const ShardOp& op, const OpStrategy& st) const;
  // Converting a tensor of `width` features from `from` to `to`; nullopt when impossible (nothing
  // turns into a partial sum). Free: equal layouts, replicated to split.
  std::optional<Duration> Reshard(Layout from, Layout to, double width) const;
  // An edge into input `input` of an operator under `st` from a producer whose output is in `producer`
  // (`width` features): the forward resharding into the strategy's layout plus the backward resharding of the
  // gradient (produced in st.in_grad) into the producer's layout (a partial sum's gradient is replicated);
  // nullopt when either is impossible.
  std::optional<Duration> Edge(Layout producer, const OpStrategy& st, size_t input, double width) const;
  const ShardingShape& shape() const { return s_; }

 private:
  Duration Collective(int kind, double bytes) const;
  const train::StepContext& ctx_;
  const model::ModelSpec& m_;
  ShardingShape s_;
};

}  // namespace dlsim::plan

#endif  // DLSIM_PLAN_SHARDING_SHARDING_COST_H_
