// `dlsim repro ugrapher` and `dlsim repro gnn-algebra`: they run, and their rows show the mechanism
// (docs/reproductions.md, "uGrapher" and "GNN algebraic transformations").
#include <gtest/gtest.h>

#include <string>

#include "common/sanitizers.h"
#include "dlsim/repro/reproduction.h"
#include "gnn_test_env.h"

namespace dlsim::repro {
namespace {

Result<ReproResult> RunRepro(const std::string& name, const ReproEnv& env) {
  ReproRegistry reg("reproduction");
  RegisterReproductions(reg);
  auto repro = reg.Create(name);
  if (!repro.ok()) return repro.error();
  return (*repro)->Run(env);
}

bool Skewed(const std::string& graph) { return graph.rfind("rmat-", 0) == 0; }
bool IsAggregation(const std::string& op) { return op.rfind("spmm-", 0) == 0; }

TEST(ReproUgrapherTest, EdgeParallelWinsWhereDegreesAreSkewed) {
  DLSIM_SKIP_UNDER_SANITIZERS();  // the measured pass regenerates two 16.7M-edge graphs
  auto r = RunRepro("ugrapher", {&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->paper_ratio, 3.5);
  ASSERT_EQ(r->details.size(), 9u * 5 * 2);  // cases x built-in graphs x GPUs
  for (const auto& row : r->details) {
    const auto graph = row["graph"].get<std::string>(), op = row["op"].get<std::string>();
    EXPECT_GE(row["vs_dgl"].get<double>(), 1.0) << graph << " " << op;  // DGL's schedule is in the space
    EXPECT_GE(row["vs_pyg"].get<double>(), 1.0) << graph << " " << op;
    if (Skewed(graph) && IsAggregation(op)) {
      // The hub's warp holds DGL's kernel; an edge mapping spreads it.
      EXPECT_EQ(row["dgl_bound"], "latency") << graph << " " << op;
      EXPECT_EQ(row["chosen"].get<std::string>().substr(1, 1), "E") << graph << " " << op;
      EXPECT_GT(row["vs_dgl"].get<double>(), 2.0) << graph << " " << op;
    }
    if (graph == "ring-d16") {
      EXPECT_LT(row["vs_dgl"].get<double>(), 2.0) << op;  // no skew, little to gain
    }
  }
  EXPECT_GT(r->our_ratio, 1.0);
}

TEST(ReproUgrapherTest, GraphsFromTheInjectedReader) {
  DLSIM_SKIP_UNDER_SANITIZERS();  // the measured pass regenerates two 16.7M-edge graphs
  ReproEnv env{&gnn::testing::Catalogs()};
  env.graphs_dir = "graphs";
  env.read_edge_list = [](const std::string& path, int) -> Result<gnn::EdgeList> {
    if (path != "graphs/cora.cites") return Error::NotFound(path + ": no such file");
    gnn::EdgeList e;
    e.num_nodes = 64;
    for (gnn::NodeId v = 1; v < 64; ++v) e.src.push_back(0), e.dst.push_back(v);  // a star
    return e;
  };
  auto r = RunRepro("ugrapher", env);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->details.size(), 9u * 6 * 2);
  EXPECT_NE(r->notes.find("email-Eu-core.csv (absent)"), std::string::npos) << r->notes;
  EXPECT_EQ(r->details[9 * 5]["graph"], "cora");
}

// The measured pass (data/profiles/h200/gnn_aggregation.csv): the regenerated graphs match the
// measured ones, and the model's DGL baseline is hub-bound where the measured cuSPARSE kernel is not.
TEST(ReproUgrapherTest, MeasuredPassShowsCusparseIsNotHubBound) {
  DLSIM_SKIP_UNDER_SANITIZERS();
  auto r = RunRepro("ugrapher", {&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->measured.size(), 18u);  // 2 graphs x 3 widths x 3 kernels at scale 20
  for (const auto& row : r->measured) {
    const auto graph = row["graph"].get<std::string>(), kernel = row["kernel"].get<std::string>();
    const double ours = row["max_in_degree"].get<double>(),
                 theirs = row["measured_max_in_degree"].get<double>();
    EXPECT_NEAR(ours, theirs, 0.05 * theirs) << graph;  // the same generator parameters
    const double ratio = row["ratio"].get<double>();
    if (kernel.rfind("cuSPARSE", 0) == 0 && Skewed(graph)) {
      EXPECT_EQ(row["bound"], "latency") << graph;  // the hub's warp in the model
      EXPECT_GT(ratio, 5.0) << graph;               // ... which the measured kernel does not pay
    } else if (kernel.rfind("cuSPARSE", 0) == 0) {
      EXPECT_LT(ratio, 1.0) << graph;  // no hub: the model is faster than cuSPARSE measures
    } else {
      EXPECT_LT(ratio, 0.5) << graph << " " << kernel;  // PyG's gather-scatter priced too fast
    }
  }
  EXPECT_NE(r->notes.find("16.5 ns per edge of its hub row"), std::string::npos) << r->notes;
}

TEST(ReproUgrapherTest, AFolderWithoutTheGraphsIsAnError) {
  ReproEnv env{&gnn::testing::Catalogs(), "nowhere",
               [](const std::string& path, int) -> Result<gnn::EdgeList> { return Error::NotFound(path); }};
  auto r = RunRepro("ugrapher", env);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("--graphs nowhere"), std::string::npos) << r.error().message;
}

TEST(ReproGnnAlgebraTest, ReorderingAndFusionAreChosenWhereTheyPay) {
  auto r = RunRepro("gnn-algebra", {&gnn::testing::Catalogs()});
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->paper_ratio, 0);  // no paper number
  for (const auto& row : r->details) {
    const auto layer = row["layer"].get<std::string>(), rules = row["rewrites"].get<std::string>();
    EXPECT_GE(row["speedup"].get<double>(), 1.0) << layer;
    // Aggregating 1433-wide rows instead of 16-wide ones is never the cheaper form.
    if (layer.rfind("gcn 1433", 0) == 0) {
      EXPECT_NE(rules.find("reorder"), std::string::npos) << rules;
    }
    if (layer.rfind("gat", 0) == 0) {
      EXPECT_NE(rules.find("fuse-attention"), std::string::npos) << rules;
    }
  }
}

}  // namespace
}  // namespace dlsim::repro
