// GNN programs, their algebraic rewrites and the cost-based choice among equivalent forms.
#include <gtest/gtest.h>

#include <algorithm>

#include "dlsim/gnn/kernels/gnn_program.h"
#include "dlsim/gnn/kernels/gnn_program_cost.h"
#include "dlsim/gnn/kernels/gnn_program_eval.h"
#include "dlsim/gnn/kernels/gnn_rewrite.h"
#include "dlsim/gnn/rmat.h"
#include "dlsim/io/catalog_loader.h"

namespace dlsim::gnn {
namespace {

Graph RmatGraph(int scale) {
  return BuildGraph(GenerateRmat({.scale = scale, .edge_factor = 6}).value(), {}).value();
}

RewriteRegistry Rules() {
  RewriteRegistry r("gnn-rewrite");
  RegisterRewrites(r);
  return r;
}

bool Used(const std::vector<Program>& forms, const std::string& rule) {
  return std::any_of(forms.begin(), forms.end(), [&](const Program& p) {
    return std::find(p.rewrites.begin(), p.rewrites.end(), rule) != p.rewrites.end();
  });
}

struct Layer {
  const char* name;
  Program program;
  std::vector<std::string> rules;  // rules that must apply somewhere
  size_t forms;                    // distinct equivalent forms, the original included
};

std::vector<Layer> Layers() {
  // GCN: {aggregate first, gemm first} x {edge weights, pushed norm} x {fusions}; GAT: unfused, fused.
  return {{"gcn", GcnLayer(12, 5), {"reorder", "push-norm", "fuse-epilogue"}, 10},
          {"sage", SageMeanLayer(12, 5), {"reorder", "fuse-epilogue"}, 4},
          {"gin", GinLayer(6, 9, 0.25), {"reorder", "fuse-epilogue"}, 4},
          {"gat", GatLayer(10, 3, 4), {"fuse-attention"}, 2}};
}

TEST(GnnAlgebraTest, EveryFormComputesTheSameOnARandomGraph) {
  const Graph g = RmatGraph(7);
  const RewriteRegistry rules = Rules();
  for (const Layer& layer : Layers()) {
    const std::vector<Program> forms = EquivalentForms(layer.program, rules, 64);
    EXPECT_EQ(forms.size(), layer.forms) << layer.name;
    for (const std::string& r : layer.rules) EXPECT_TRUE(Used(forms, r)) << layer.name << " " << r;
    const Tensors in = RandomInputs(layer.program, g, 7);
    const Matrix ref = Evaluate(layer.program, g, in).value();
    double norm = 0;
    for (double x : ref.data) norm = std::max(norm, std::abs(x));
    ASSERT_GT(norm, 0.01) << layer.name;  // a non-trivial output
    for (const Program& f : forms) {
      const Matrix y = Evaluate(f, g, in).value();
      EXPECT_LT(RelativeDifference(ref, y), 1e-12) << layer.name << ": " << Describe(f);
    }
  }
}

TEST(GnnAlgebraTest, TheCheckCatchesAWrongRewrite) {
  // relu(A X W) with the relu moved before the aggregation is not the same layer.
  const Graph g = RmatGraph(7);
  const Program p = GcnLayer(8, 4);
  Program wrong = p;
  wrong.ops[0].relu = true;  // relu on the aggregate...
  wrong.ops.pop_back();      // ...instead of after the GEMM
  wrong.output = wrong.ops.back().out;
  const Tensors in = RandomInputs(p, g, 3);
  EXPECT_GT(RelativeDifference(Evaluate(p, g, in).value(), Evaluate(wrong, g, in).value()), 1e-3);
}

TEST(GnnAlgebraTest, MaxAggregationNeverMoves) {
  Program p = SageMeanLayer(12, 5);
  for (Op& op : p.ops) {
    if (op.kind == OpKind::kAggregate) op.mean = false, op.reduce = DstReduce::kMax;
  }
  for (const Program& f : EquivalentForms(p, Rules(), 64)) {
    EXPECT_EQ(std::count(f.rewrites.begin(), f.rewrites.end(), "reorder"), 0) << Describe(f);
  }
}

TEST(GnnAlgebraTest, RulesOnGcnAsDescribed) {
  const Program p = GcnLayer(12, 5);
  EXPECT_EQ(Describe(p), "v3 = aggregate-sum(v0 w v2); v4 = gemm(v3, W0[12x5]); v5 = relu(v4)");
  RewriteRegistry r("gnn-rewrite");
  RegisterRewrites(r);
  const auto reordered = r.Create("reorder").value()->Apply(p);
  ASSERT_EQ(reordered.size(), 1u);
  EXPECT_EQ(Describe(reordered[0], true),
            "v3 = gemm(v0, W0[12x5]); v4 = aggregate-sum(v3 w v2); v5 = relu(v4)");
  const auto pushed = r.Create("push-norm").value()->Apply(p);
  ASSERT_EQ(pushed.size(), 1u);
  EXPECT_EQ(
      Describe(pushed[0], true),
      "v3 = scale-rows(v0, v1); v4 = aggregate-sum(v3) *rows v1; v5 = gemm(v4, W0[12x5]); v6 = relu(v5)");
}

struct CostEnv {
  catalog::Catalogs cat = io::LoadCatalogs({}).value();
  const hw::GpuSpec* gpu = cat.hardware.FindGpu("a100").value();
  std::unique_ptr<cost::ComputeModel> compute = cost::MakeRooflineComputeModel(*gpu, cat.compute);
  ScheduleFamilyRegistry families{"graph-schedule"};
  CostEnv() { RegisterScheduleFamilies(families); }
  ProgramCostContext Ctx() const {
    return {.gpu = gpu, .compute = compute.get(), .families = &families, .kernels = nullptr, .params = {}};
  }
};

int AggregateWidth(const Program& p) {
  for (const Op& op : p.ops) {
    if (op.kind == OpKind::kAggregate) return p.values[op.out].width;
  }
  return -1;
}

TEST(GnnAlgebraTest, ChoiceAggregatesAtTheSmallerWidth) {
  const CostEnv env;
  const GraphProfile g = ProfileGraph(RmatGraph(12));
  const RewriteRegistry rules = Rules();
  const FormChoice wide_in = ChooseForm(GcnLayer(512, 16), g, env.Ctx(), rules, 64).value();
  EXPECT_EQ(AggregateWidth(wide_in.best), 16) << Describe(wide_in.best);
  EXPECT_LT(wide_in.best_cost.time_ns, wide_in.original_cost.time_ns);
  const FormChoice wide_out = ChooseForm(GcnLayer(16, 512), g, env.Ctx(), rules, 64).value();
  EXPECT_EQ(AggregateWidth(wide_out.best), 16) << Describe(wide_out.best);
  EXPECT_LE(wide_out.best_cost.time_ns, wide_out.original_cost.time_ns);
}

TEST(GnnAlgebraTest, FusedAttentionIsCheaperThanTheEdgeTensors) {
  const CostEnv env;
  const GraphProfile g = ProfileGraph(RmatGraph(12));
  const Program p = GatLayer(64, 8, 8);
  const std::vector<Program> fused = Rules().Create("fuse-attention").value()->Apply(p);
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_LT(CostProgram(fused[0], g, env.Ctx()).value().time_ns,
            CostProgram(p, g, env.Ctx()).value().time_ns);
}

TEST(GnnAlgebraTest, EvaluateRejectsWrongShapes) {
  const Graph g = RmatGraph(6);
  const Program p = GcnLayer(8, 4);
  Tensors in = RandomInputs(p, g, 1);
  in.params[0].cols = 3;
  EXPECT_FALSE(Evaluate(p, g, in).ok());
  Tensors other = RandomInputs(GcnLayer(9, 4), g, 1);
  EXPECT_FALSE(Evaluate(p, g, other).ok());
}

}  // namespace
}  // namespace dlsim::gnn
