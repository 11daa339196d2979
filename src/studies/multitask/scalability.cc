#include "dlsim/studies/multitask/scalability.h"

#include <map>
#include <utility>

#include "dlsim/train/chunk_cost.h"
#include "dlsim/train/parallel_plan.h"

namespace dlsim::multitask {
namespace {

int CeilDiv(int a, int b) { return (a + b - 1) / b; }

// The shape train prices: the module's, one layer; a head is a one-layer model whose vocab is the
// head's output features (its other fields only keep the spec valid).
model::ModelSpec PricedShape(const Module& m) {
  model::ModelSpec s = m.shape;
  s.layers = 1;
  if (m.kind == ModuleKind::kHead) {
    s.heads = 1;
    s.kv_heads = 1;
    s.ffn_hidden = s.hidden;
    s.explicit_head_dim = 0;
    s.mla = {};
  }
  if (s.vocab < 1) s.vocab = 1;
  return s;
}

}  // namespace

std::vector<Duration> ScalingCurve::Totals() const {
  std::vector<Duration> out;
  out.reserve(points.size());
  for (const ScalePoint& p : points) out.push_back(p.feasible ? p.total() : Duration::Max());
  return out;
}

ScalabilityEstimator::ScalabilityEstimator(const train::StepContext& ctx, PricingOptions o)
    : ctx_(ctx), o_(std::move(o)) {}

bool ScalabilityEstimator::TpAllowed(const MetaOp& op, const Workload& w, int tp) const {
  if (tp < 1 || (tp & (tp - 1)) != 0 || tp > ctx_.gpus_per_node) return false;
  if (op.kind == ModuleKind::kHead) return true;
  const model::ModelSpec& m = w.modules[op.module].shape;
  return m.heads % tp == 0 && (m.kv_heads % tp == 0 || tp % m.kv_heads == 0);
}

ScalePoint ScalabilityEstimator::PriceReplica(const MetaOp& op, const Workload& w, int samples,
                                              int tp) const {
  const Module& module = w.modules[op.module];
  train::TrainOptions o;
  o.model = PricedShape(module);
  o.training.seq_len = op.tokens;
  o.training.micro_batch = samples;
  o.training.global_batch = samples;
  o.training.precision = o_.precision;
  o.training.attention = o_.attention;
  o.parallel.tp = tp;
  o.parallel.recompute = o_.recompute;
  train::ParallelPlan plan;
  plan.tp = tp;
  plan.edp = 1;
  plan.micro_batch = samples;
  plan.seq_len = op.tokens;
  plan.sequence_parallel = o_.sequence_parallel && tp > 1 && op.tokens % tp == 0;
  o.parallel.sequence_parallel = plan.sequence_parallel;
  plan.layers = {1};
  const train::ChunkCostModel cm(o, plan, ctx_);
  const train::ChunkCostModel::LayerCost& lc =
      module.kind == ModuleKind::kHead ? cm.uniform_head_cost() : cm.uniform_layer_cost();
  ScalePoint p;
  p.feasible = true;
  p.fwd = lc.fwd.Total();
  p.bwd = lc.bwd.Total();
  p.tp_comm = lc.fwd.tp_comm + lc.bwd.tp_comm;
  p.model_flops = lc.fwd_flops * 3.0;
  p.saved = o_.recompute == train::Recompute::kFull && module.kind == ModuleKind::kTransformer
                ? lc.saved_full_recompute
                : lc.saved;
  return p;
}

std::optional<ScalePoint> ScalabilityEstimator::Price(const MetaOp& op, const Workload& w,
                                                      ParallelConfig c) const {
  if (c.dp < 1 || c.dp > op.samples || !TpAllowed(op, w, c.tp)) return std::nullopt;
  ScalePoint p = PriceReplica(op, w, CeilDiv(op.samples, c.dp), c.tp);
  p.config = c;
  return p;
}

ScalingCurve ScalabilityEstimator::Estimate(const MetaOp& op, const Workload& w, int max_devices) const {
  ScalingCurve curve;
  curve.points.resize(static_cast<size_t>(max_devices));
  // A replica's cost depends on (samples per replica, tp) only: price each pair once.
  std::map<std::pair<int, int>, ScalePoint> memo;
  auto price = [&](int samples, int tp) -> const ScalePoint& {
    auto it = memo.find({samples, tp});
    if (it == memo.end())
      it = memo.emplace(std::make_pair(samples, tp), PriceReplica(op, w, samples, tp)).first;
    return it->second;
  };
  curve.model_flops = price(op.samples, 1).model_flops;
  ScalePoint best;  // the best on fewer devices so far
  for (int n = 1; n <= max_devices; ++n) {
    for (int tp = 1; tp <= n; tp *= 2) {
      if (n % tp != 0 || !TpAllowed(op, w, tp)) continue;
      const int dp = n / tp;
      if (dp > op.samples) continue;
      ScalePoint p = price(CeilDiv(op.samples, dp), tp);
      p.config = {dp, tp};
      if (!best.feasible || p.total() < best.total()) best = p;
    }
    curve.points[static_cast<size_t>(n) - 1] = best;
  }
  return curve;
}

}  // namespace dlsim::multitask
