// The algebraic rewrite rules of GNN programs (gnn_rewrite.h).
#include "dlsim/gnn/kernels/gnn_rewrite.h"

#include <deque>
#include <functional>
#include <set>
#include <string>

namespace dlsim::gnn {
namespace {

int Producer(const Program& p, int v) {
  for (size_t i = 0; i < p.ops.size(); ++i) {
    if (p.ops[i].out == v) return static_cast<int>(i);
  }
  return -1;
}

bool NoEpilogue(const Op& op) { return op.scale < 0 && !op.relu; }
bool IsLinearAggregate(const Op& op) {
  if (op.kind != OpKind::kAggregate || op.reduce != DstReduce::kSum) return false;
  return op.in.size() == 1 || op.in[1] == kEdgeNorm;  // a fixed edge weight, not one computed from X
}
// `v` has one reader, and it is not the program's output.
bool SingleUse(const Program& p, int v) { return v != p.output && Consumers(p, v) == 1; }

int NewValue(Program& p, ValueKind kind, int width) {
  p.values.push_back({kind, width});
  return static_cast<int>(p.values.size()) - 1;
}

void MoveEpilogue(const Op& from, Op& to) {
  to.scale = from.scale;
  to.relu = from.relu;
}

Program Mark(Program p, const char* rule) {
  p.rewrites.push_back(rule);
  return p;
}

// aggregate(x) -> gemm  ==>  gemm(x) -> aggregate.
void AggregateThenGemm(const Program& p, size_t i, std::vector<Program>& out) {
  const Op& agg = p.ops[i];
  if (!IsLinearAggregate(agg) || !NoEpilogue(agg) || !SingleUse(p, agg.out)) return;
  for (size_t j = i + 1; j < p.ops.size(); ++j) {
    const Op& g = p.ops[j];
    if (g.kind != OpKind::kGemm || g.in[0] != agg.out) continue;
    Program q = p;
    const int y = NewValue(q, ValueKind::kVertex, q.params[g.param].second);
    Op gemm{.kind = OpKind::kGemm, .out = y, .in = {agg.in[0]}, .param = g.param};
    Op moved = agg;
    moved.in[0] = y;
    moved.out = g.out;
    MoveEpilogue(g, moved);
    q.ops[i] = gemm;
    q.ops[j] = moved;
    out.push_back(Mark(std::move(q), "reorder"));
  }
}

// gemm(x) -> aggregate  ==>  aggregate(x) -> gemm.
void GemmThenAggregate(const Program& p, size_t i, std::vector<Program>& out) {
  const Op& g = p.ops[i];
  if (g.kind != OpKind::kGemm || !NoEpilogue(g) || !SingleUse(p, g.out)) return;
  for (size_t j = i + 1; j < p.ops.size(); ++j) {
    const Op& agg = p.ops[j];
    if (!IsLinearAggregate(agg) || agg.in[0] != g.out) continue;
    if (agg.in.size() > 1 && Producer(p, agg.in[1]) > static_cast<int>(i)) continue;
    Program q = p;
    const int a = NewValue(q, ValueKind::kVertex, q.params[g.param].first);
    Op first = agg;
    first.in[0] = g.in[0];
    first.out = a;
    first.scale = -1;
    first.relu = false;
    Op gemm{.kind = OpKind::kGemm, .out = agg.out, .in = {a}, .param = g.param};
    MoveEpilogue(agg, gemm);
    q.ops[i] = first;
    q.ops[j] = gemm;
    out.push_back(Mark(std::move(q), "reorder"));
  }
}

// (alpha x + aggregate(x)) W  ==>  alpha (x W) + aggregate(x W)   (GIN).
void DistributeGemm(const Program& p, size_t k, std::vector<Program>& out) {
  const Op& g = p.ops[k];
  if (g.kind != OpKind::kGemm) return;
  const int s = Producer(p, g.in[0]);
  if (s < 0 || p.ops[s].kind != OpKind::kAdd || !NoEpilogue(p.ops[s]) || !SingleUse(p, g.in[0])) return;
  const Op& add = p.ops[s];
  const int a = Producer(p, add.in[1]);
  if (a < 0 || !IsLinearAggregate(p.ops[a]) || !NoEpilogue(p.ops[a]) || !SingleUse(p, add.in[1])) return;
  if (p.ops[a].in[0] != add.in[0]) return;
  Program q = p;
  const int y = NewValue(q, ValueKind::kVertex, q.params[g.param].second);
  const int ay = NewValue(q, ValueKind::kVertex, q.params[g.param].second);
  Op agg = p.ops[a];
  agg.in[0] = y;
  agg.out = ay;
  Op sum = add;
  sum.in = {y, ay};
  sum.out = g.out;
  MoveEpilogue(g, sum);
  q.ops[a] = Op{.kind = OpKind::kGemm, .out = y, .in = {add.in[0]}, .param = g.param};
  q.ops[s] = agg;
  q.ops[k] = sum;
  out.push_back(Mark(std::move(q), "reorder"));
}

class Reorder final : public RewriteRule {
 public:
  std::vector<Program> Apply(const Program& p) const override {
    std::vector<Program> out;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      AggregateThenGemm(p, i, out);
      GemmThenAggregate(p, i, out);
      DistributeGemm(p, i, out);
    }
    return out;
  }
};

class PushNorm final : public RewriteRule {
 public:
  std::vector<Program> Apply(const Program& p) const override {
    std::vector<Program> out;
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const Op& agg = p.ops[i];
      if (agg.kind != OpKind::kAggregate || agg.mean || agg.reduce != DstReduce::kSum || agg.in.size() < 2 ||
          agg.in[1] != kEdgeNorm || agg.scale >= 0) {
        continue;
      }
      Program q = p;
      const int scaled = NewValue(q, ValueKind::kVertex, q.values[agg.in[0]].width);
      Op pre{.kind = OpKind::kScaleRows, .out = scaled, .in = {agg.in[0], kDegInvSqrt}};
      Op moved = agg;
      moved.in = {scaled};
      moved.scale = kDegInvSqrt;
      q.ops[i] = moved;
      q.ops.insert(q.ops.begin() + static_cast<std::ptrdiff_t>(i), pre);
      out.push_back(Mark(std::move(q), "push-norm"));
    }
    return out;
  }
};

bool TakesEpilogue(const Op& op) { return op.kind != OpKind::kEdgeScores && op.kind != OpKind::kEdgeSoftmax; }

class FuseEpilogue final : public RewriteRule {
 public:
  std::vector<Program> Apply(const Program& p) const override {
    std::vector<Program> out;
    for (size_t j = 0; j < p.ops.size(); ++j) {
      const Op& e = p.ops[j];
      if (e.kind != OpKind::kRelu && e.kind != OpKind::kScaleRows) continue;
      const int i = Producer(p, e.in[0]);
      if (i < 0 || !TakesEpilogue(p.ops[i]) || !SingleUse(p, e.in[0]) || p.ops[i].relu) continue;
      if (e.kind == OpKind::kScaleRows && (p.ops[i].scale >= 0 || Producer(p, e.in[1]) > i)) continue;
      Program q = p;
      Op& prod = q.ops[i];
      prod.out = e.out;
      if (e.kind == OpKind::kRelu) prod.relu = true;
      if (e.kind == OpKind::kScaleRows) prod.scale = e.in[1];
      q.ops.erase(q.ops.begin() + static_cast<std::ptrdiff_t>(j));
      out.push_back(Mark(std::move(q), "fuse-epilogue"));
    }
    return out;
  }
};

class FuseAttention final : public RewriteRule {
 public:
  std::vector<Program> Apply(const Program& p) const override {
    std::vector<Program> out;
    for (size_t k = 0; k < p.ops.size(); ++k) {
      const Op& agg = p.ops[k];
      if (agg.kind != OpKind::kAggregate || agg.in.size() < 2) continue;
      const int sm = Producer(p, agg.in[1]);
      if (sm < 0 || p.ops[sm].kind != OpKind::kEdgeSoftmax || !SingleUse(p, agg.in[1])) continue;
      const int sc = Producer(p, p.ops[sm].in[0]);
      if (sc < 0 || p.ops[sc].kind != OpKind::kEdgeScores || !SingleUse(p, p.ops[sm].in[0])) continue;
      Program q = p;
      Op att = agg;
      att.kind = OpKind::kAttention;
      att.in = {agg.in[0], p.ops[sc].in[0], p.ops[sc].in[1]};
      q.ops[k] = att;
      q.ops.erase(q.ops.begin() + std::max(sm, sc));
      q.ops.erase(q.ops.begin() + std::min(sm, sc));
      out.push_back(Mark(std::move(q), "fuse-attention"));
    }
    return out;
  }
};

}  // namespace

void RegisterRewrites(RewriteRegistry& reg) {
  reg.RegisterBuiltin("reorder", "A (X W) = (A X) W for sum/mean/fixed-weight aggregation; GIN's (aX + AX) W",
                      [] { return std::make_unique<Reorder>(); });
  reg.RegisterBuiltin("push-norm",
                      "GCN's edge norm as row scales around an unweighted sum: D^-1/2 A D^-1/2 X",
                      [] { return std::make_unique<PushNorm>(); });
  reg.RegisterBuiltin("fuse-epilogue", "a relu or row scale runs in the epilogue of the op before it",
                      [] { return std::make_unique<FuseEpilogue>(); });
  reg.RegisterBuiltin("fuse-attention", "edge scores + edge softmax + weighted sum as one op (SDDMM + SpMM)",
                      [] { return std::make_unique<FuseAttention>(); });
}

std::vector<Program> EquivalentForms(const Program& p, const RewriteRegistry& rules, int limit) {
  std::vector<std::unique_ptr<RewriteRule>> made;
  for (const auto* e : rules.Entries()) made.push_back(e->factory());
  std::vector<Program> out{p};
  std::set<std::string> seen{Describe(p, true)};
  for (size_t next = 0; next < out.size() && static_cast<int>(out.size()) < limit; ++next) {
    for (const auto& rule : made) {
      for (Program& q : rule->Apply(out[next])) {
        if (static_cast<int>(out.size()) >= limit) break;
        if (seen.insert(Describe(q, true)).second) out.push_back(std::move(q));
      }
    }
  }
  return out;
}

}  // namespace dlsim::gnn
