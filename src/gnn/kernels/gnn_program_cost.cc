// Pricing GNN programs and choosing among their equivalent forms (gnn_program_cost.h).
#include "dlsim/gnn/kernels/gnn_program_cost.h"

#include <fmt/format.h>

#include "dlsim/gnn/kernels/schedule_select.h"

namespace dlsim::gnn {
namespace {

constexpr double kElemBytes = 4;

// The graph loops of a graph op (empty for a dense op).
std::vector<GraphLoop> LoopsOf(const Program& p, const Op& op) {
  const int w = p.values[op.out].width;
  switch (op.kind) {
    case OpKind::kAggregate: {
      const int weights = op.in.size() > 1 ? p.values[op.in[1]].width : 0;
      return {{.name = "aggregate",
               .width = w,
               .read_src = true,
               .read_edge = weights,
               .to_dst = op.reduce,
               .mean = op.mean}};
    }
    case OpKind::kEdgeScores:
      return {{.name = "edge-scores", .width = w, .read_src = true, .read_dst = true, .write_edge = w}};
    case OpKind::kEdgeSoftmax:
      return {{.name = "score-max", .width = w, .read_edge = w, .to_dst = DstReduce::kMax},
              {.name = "exp-sum",
               .width = w,
               .read_dst = true,
               .read_edge = w,
               .write_edge = w,
               .to_dst = DstReduce::kSum},
              {.name = "divide", .width = w, .read_dst = true, .read_edge = w, .write_edge = w}};
    case OpKind::kAttention: {
      const int heads = p.values[op.in[1]].width;
      return {
          {.name = "score-max",
           .width = heads,
           .read_src = true,
           .read_dst = true,
           .to_dst = DstReduce::kMax},
          {.name = "exp-sum", .width = heads, .read_src = true, .read_dst = true, .to_dst = DstReduce::kSum},
          {.name = "weighted-sum",
           .width = w,
           .read_src = true,
           .read_dst = true,
           .to_dst = DstReduce::kSum}};
    }
    default:
      return {};
  }
}

std::string Signature(const GraphLoop& l) {
  return fmt::format("{}/{}{}{}/{}/{}/{}{}{}", l.width, l.read_src, l.read_dst, l.dot, l.read_edge,
                     l.write_edge, static_cast<int>(l.to_dst), l.mean, l.name);
}

Result<double> LoopNs(const GraphLoop& l, const GraphProfile& g, const ProgramCostContext& ctx,
                      std::string& sched, LoopCostCache* cache) {
  const std::string key = cache ? Signature(l) : "";
  if (!cache || !cache->count(key)) {
    DLSIM_ASSIGN_OR_RETURN(OpChoice c, ctx.kernels
                                           ? CostStatic(g, {l}, *ctx.kernels, *ctx.gpu, ctx.params)
                                           : SelectSchedules(g, {l}, *ctx.families, *ctx.gpu, ctx.params));
    if (!cache) {
      if (!sched.empty()) sched += '+';
      sched += ScheduleName(c.schedules[0]);
      return c.time_ns;
    }
    (*cache)[key] = {c.time_ns, ScheduleName(c.schedules[0])};
  }
  const auto& [ns, name] = cache->at(key);
  if (!sched.empty()) sched += '+';
  sched += name;
  return ns;
}

double DenseNs(const Program& p, const Op& op, const GraphProfile& g, const ProgramCostContext& ctx) {
  const int w = p.values[op.out].width;
  const auto n = static_cast<double>(g.nodes);
  if (op.kind == OpKind::kGemm) {
    const auto& [rows, cols] = p.params[op.param];
    return ctx.compute->Gemm({.m = g.nodes, .n = cols, .k = rows}, hw::DType::kFp32).ToSeconds() * 1e9;
  }
  const double tensors = op.kind == OpKind::kAdd ? 3 : 2;  // inputs and the output
  const double bytes = tensors * n * w * kElemBytes + (op.kind == OpKind::kScaleRows ? n * kElemBytes : 0);
  return ctx.compute->MemoryBound(Bytes(bytes), Flops(n * w)).ToSeconds() * 1e9;
}

}  // namespace

Result<ProgramCost> CostProgram(const Program& p, const GraphProfile& g, const ProgramCostContext& ctx,
                                LoopCostCache* cache) {
  ProgramCost out;
  for (const Op& op : p.ops) {
    const std::vector<GraphLoop> loops = LoopsOf(p, op);
    double ns = 0;
    std::string sched;
    if (loops.empty()) ns = DenseNs(p, op, g, ctx);
    for (const GraphLoop& l : loops) {
      DLSIM_ASSIGN_OR_RETURN(double t, LoopNs(l, g, ctx, sched, cache));
      ns += t;
    }
    out.time_ns += ns;
    out.ops.push_back(
        fmt::format("{}{}{} {:.1f} us", OpName(op), sched.empty() ? "" : " ", sched, ns * 1e-3));
  }
  return out;
}

Result<FormChoice> ChooseForm(const Program& p, const GraphProfile& g, const ProgramCostContext& ctx,
                              const RewriteRegistry& rules, int limit) {
  const std::vector<Program> forms = EquivalentForms(p, rules, limit);
  FormChoice out;
  out.forms = static_cast<int>(forms.size());
  LoopCostCache cache;
  for (size_t i = 0; i < forms.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(ProgramCost c, CostProgram(forms[i], g, ctx, &cache));
    if (i == 0) out.original_cost = c;
    if (i == 0 || c.time_ns < out.best_cost.time_ns) {
      out.best = forms[i];
      out.best_cost = std::move(c);
    }
  }
  return out;
}

}  // namespace dlsim::gnn
