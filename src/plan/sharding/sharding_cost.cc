#include "dlsim/plan/sharding/sharding_cost.h"

#include <algorithm>

#include "dlsim/net/collective.h"
#include "dlsim/train/chunk_cost.h"

namespace dlsim::plan {
namespace {

constexpr double kActBytes = 2;  // bf16 activations, as train/chunk_cost.cc

bool Split(Layout l) { return l == Layout::kTokens || l == Layout::kFeatures; }

}  // namespace

Duration ShardingCostModel::Collective(int kind, double bytes) const {
  const net::GroupLayout g{s_.tp, std::min(s_.tp, ctx_.gpus_per_node)};
  return ctx_.comm->Time(static_cast<net::Collective>(kind), Bytes(bytes), g, ctx_.fabric);
}

Duration ShardingCostModel::Op(const ShardOp& op, const OpStrategy& st) const {
  const cost::ComputeModel& cm = *ctx_.compute;
  const int t = s_.tp;
  const int64_t T = s_.tokens;
  const hw::DType dt = s_.dtype;
  switch (op.kind) {
    case ShardOpKind::kGemm: {
      int64_t m = T, n = op.op.n, k = op.op.k;
      if (st.name == "column") n = (n + t - 1) / t;
      if (st.name == "row") k = (k + t - 1) / t;
      if (st.name == "tokens") m = (T + t - 1) / t;
      Duration d = cm.Gemm({m, n, k, 1}, dt) + cm.Gemm({m, k, n, 1}, dt) +
                   cm.Gemm({k, n, m, 1, cost::GemmLayout::kWeightGradient}, dt);
      if (st.name == "tokens") {
        d +=
            Collective(static_cast<int>(net::Collective::kAllReduce), static_cast<double>(n) * k * kActBytes);
      }
      return d;
    }
    case ShardOpKind::kAttention: {
      const int div = st.name == "heads" ? t : 1;
      const cost::AttentionShape a{std::max<int64_t>(1, T / s_.seq),
                                   std::max(1, m_.heads / div),
                                   std::max(1, m_.kv_heads / div),
                                   s_.seq,
                                   s_.seq,
                                   m_.head_dim(),
                                   true};
      return cm.AttentionForwardVarlen({a}, dt) + cm.AttentionBackwardVarlen({a}, dt);
    }
    default: {
      const double tok = Split(st.out) ? static_cast<double>(T) / t : static_cast<double>(T);
      const cost::MemoryKind kind = train::MemoryKindOf(op.op.access);
      return cm.MemoryBound(Bytes(op.op.bytes_per_token * tok), Flops(op.op.flops_per_token * tok), kind) +
             cm.MemoryBound(Bytes(2 * op.op.bytes_per_token * tok), Flops(2 * op.op.flops_per_token * tok),
                            kind);
    }
  }
}

std::optional<Duration> ShardingCostModel::Reshard(Layout from, Layout to, double width) const {
  if (from == to || (from == Layout::kReplicated && to != Layout::kPartial)) return Duration::Zero();
  if (to == Layout::kPartial) return std::nullopt;
  const double bytes = static_cast<double>(s_.tokens) * width * kActBytes;
  using C = net::Collective;
  C c = C::kAllToAll;  // tokens <-> features
  if (from == Layout::kPartial) c = to == Layout::kReplicated ? C::kAllReduce : C::kReduceScatter;
  if (to == Layout::kReplicated && from != Layout::kPartial) c = C::kAllGather;
  return Collective(static_cast<int>(c), bytes);
}

std::optional<Duration> ShardingCostModel::Edge(Layout producer, const OpStrategy& st, size_t input,
                                                double width) const {
  const Layout grad_to = producer == Layout::kPartial ? Layout::kReplicated : producer;
  const std::optional<Duration> f = Reshard(producer, st.in[input], width),
                                b = Reshard(st.in_grad[input], grad_to, width);
  if (!f || !b) return std::nullopt;
  return *f + *b;
}

}  // namespace dlsim::plan
