// The gnn: scenario section: defaults, graph files, and a located error for each bad input.
#include "dlsim/io/gnn_scenario.h"

#include <gtest/gtest.h>

#include "dlsim/gnn/simulate.h"
#include "gnn_test_env.h"

namespace dlsim::gnn {
namespace {

using testing::Parse;
using testing::Scenario;

std::string ErrorOf(const std::string& text) {
  auto r = Parse(text);
  return r.ok() ? "" : r.error().message;
}

TEST(GnnScenarioTest, ShippedScenariosParse) {
  for (const char* f :
       {"gnn_bgl_rmat22.yaml", "gnn_small.yaml", "gnn_caliex_disk.yaml", "gnn_cnr2000.yaml"}) {
    auto sc = io::LoadGnnScenarioFile(std::string(DLSIM_DATA_DIR) + "/scenarios/" + f,
                                      testing::Catalogs().hardware, testing::Names());
    ASSERT_TRUE(sc.ok()) << f << ": " << sc.error().message;
  }
}

TEST(GnnScenarioTest, ReadsEveryKey) {
  auto sc = Parse(Scenario("{file: tiny.txt, format: snap}",
                           "  sampler: {name: importance, fanouts: [5, 3, 2]}\n"
                           "  batch: {size: 2, order: bfs, sequences: 2}\n"
                           "  cache: {policy: lru, gpu_gib: 0, host_gib: 1}\n"  // the graph is 6 nodes
                           "  store: disk\n"
                           "  hardware: {node: dgx-h100, machines: 2}\n"
                           "  compare: [{name: a, cache: none}]\n"));
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  const GnnOptions& o = sc->options;
  EXPECT_FALSE(o.graph.rmat);
  EXPECT_EQ(o.graph.edges->num_nodes, 6);
  EXPECT_EQ(o.sampler, "importance");
  EXPECT_EQ(o.sampler_options.fanouts, (std::vector<int>{5, 3, 2}));
  EXPECT_EQ(o.order_options.batch_size, 2);
  EXPECT_EQ(o.cache.policy, "lru");
  EXPECT_EQ(o.store, FeatureStore::kDisk);
  EXPECT_EQ(o.hardware.node, "dgx-h100");
  ASSERT_EQ(sc->compare.size(), 1u);
  EXPECT_EQ(sc->compare[0].cache_policy, "none");
}

// Bad input: each error names the file, the line and the key.
TEST(GnnScenarioBadInputTest, FanoutZero) {
  EXPECT_EQ(ErrorOf(Scenario("{rmat: {scale: 8}}", "  sampler: {fanouts: [25, 0]}\n")),
            "s.yaml:4:27: gnn.sampler.fanouts[1]: expected an integer, found '0'; allowed: 1..1048576");
}
TEST(GnnScenarioBadInputTest, UnknownPolicyWithSuggestion) {
  const std::string e = ErrorOf(Scenario("{rmat: {scale: 8}}", "  cache: {policy: fifoo}\n"));
  EXPECT_NE(e.find("gnn.cache.policy"), std::string::npos) << e;
  EXPECT_EQ(e,
            "s.yaml:4:19: gnn.cache.policy: unknown name 'fifoo' (did you mean 'fifo'?); allowed: belady, "
            "degree, fifo, "
            "frequency, lru, none");
}
TEST(GnnScenarioBadInputTest, UnknownSampler) {
  const std::string e = ErrorOf(Scenario("{rmat: {scale: 8}}", "  sampler: {name: graphsage}\n"));
  EXPECT_NE(e.find("gnn.sampler.name"), std::string::npos) << e;
  EXPECT_NE(e.find("uniform"), std::string::npos) << e;
}
TEST(GnnScenarioBadInputTest, UnknownPartitionerInCompare) {
  const std::string e = ErrorOf(Scenario("{rmat: {scale: 8}}", "  compare: [{partition: mettis}]\n"));
  EXPECT_NE(e.find("did you mean 'metis'"), std::string::npos) << e;
}
TEST(GnnScenarioBadInputTest, MalformedEdgeLineInTheGraphFile) {
  const std::string e = ErrorOf(Scenario("{file: bad_line.csv}"));
  EXPECT_NE(e.find("bad_line.csv:4: expected 2 node ids"), std::string::npos) << e;
  EXPECT_NE(e.find("s.yaml:3"), std::string::npos) << e;
}
TEST(GnnScenarioBadInputTest, EmptyGraphFile) {
  EXPECT_NE(ErrorOf(Scenario("{file: comments_only.txt}")).find("no edge in the file"), std::string::npos);
}
TEST(GnnScenarioBadInputTest, NodeIdOutOfRange) {
  const std::string e = ErrorOf(Scenario("{file: tiny.txt, num_nodes: 5}"));
  EXPECT_NE(e.find("tiny.txt:7: node id 5 is out of range; the graph has 5 nodes"), std::string::npos) << e;
}
TEST(GnnScenarioBadInputTest, MissingGraphFile) {
  EXPECT_NE(ErrorOf(Scenario("{file: nowhere.txt}")).find("nowhere.txt"), std::string::npos);
}
TEST(GnnScenarioBadInputTest, BothFileAndRmat) {
  EXPECT_NE(ErrorOf(Scenario("{file: tiny.txt, rmat: {scale: 8}}"))
                .find("exactly one of 'file', 'shipped' and 'rmat'"),
            std::string::npos);
}
TEST(GnnScenarioTest, AShippedRealGraphByName) {
  auto sc = Parse(Scenario("{shipped: ogbl-ddi}"));
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  EXPECT_FALSE(sc->options.graph.rmat);
  EXPECT_EQ(sc->options.graph.name, "ogbl-ddi");
  EXPECT_EQ(sc->options.graph.edges->num_nodes, 4267);
}
TEST(GnnScenarioBadInputTest, UnknownShippedGraph) {
  const std::string e = ErrorOf(Scenario("{shipped: cnr2000}"));
  EXPECT_NE(e.find("gnn.graph.shipped"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'cnr-2000'"), std::string::npos) << e;
}
TEST(GnnScenarioBadInputTest, ShippedAndRmat) {
  EXPECT_NE(ErrorOf(Scenario("{shipped: cnr-2000, rmat: {scale: 8}}")).find("exactly one of"),
            std::string::npos);
}
TEST(GnnScenarioBadInputTest, AdjacencyListsHaveNoLinesToSkip) {
  EXPECT_NE(
      ErrorOf(Scenario("{file: tiny.txt, format: adjacency, skip_lines: 1}")).find("gnn.graph.skip_lines"),
      std::string::npos);
}
TEST(GnnScenarioBadInputTest, MissingGraph) {
  EXPECT_NE(ErrorOf("gnn:\n  features: {dim: 4}\n").find("missing required key 'graph'"), std::string::npos);
}
TEST(GnnScenarioBadInputTest, RmatScaleOutOfRange) {
  EXPECT_NE(ErrorOf(Scenario("{rmat: {scale: 40}}")).find("gnn.graph.rmat.scale"), std::string::npos);
}
TEST(GnnScenarioBadInputTest, RmatProbabilitiesAboveOne) {
  EXPECT_NE(ErrorOf(Scenario("{rmat: {a: 0.7, b: 0.2, c: 0.2}}")).find("a + b + c must be at most 1"),
            std::string::npos);
}
TEST(GnnScenarioBadInputTest, UnknownKeyWithSuggestion) {
  EXPECT_NE(ErrorOf(Scenario("{rmat: {scale: 8}}", "  cahce: {policy: lru}\n")).find("did you mean 'cache'"),
            std::string::npos);
}
TEST(GnnScenarioBadInputTest, UnknownNode) {
  EXPECT_NE(
      ErrorOf(Scenario("{rmat: {scale: 8}}", "  hardware: {node: dgx-a1000}\n")).find("gnn.hardware.node"),
      std::string::npos);
}
TEST(GnnScenarioBadInputTest, SplitAboveOne) {
  EXPECT_NE(ErrorOf(Scenario("{rmat: {scale: 8}}", "  split: {train: 0.8, val: 0.3}\n")).find("<= 1"),
            std::string::npos);
}
TEST(GnnScenarioBadInputTest, UnknownStore) {
  EXPECT_NE(ErrorOf(Scenario("{rmat: {scale: 8}}", "  store: ssd\n")).find("gnn.store"), std::string::npos);
}

// `compare: []` fell back to the default set, and two variants of one name ran side by side.
TEST(GnnScenarioBadInputTest, CompareListEmptyOrWithARepeatedName) {
  EXPECT_EQ(
      ErrorOf(Scenario("{rmat: {scale: 8}}", "  compare: []\n")),
      "s.yaml:4:12: gnn.compare: the list is empty; give at least one variant, or leave compare out for the "
      "default set");
  EXPECT_EQ(ErrorOf(Scenario("{rmat: {scale: 8}}", "  compare: [{name: a}, {name: a, order: shuffle}]\n")),
            "s.yaml:4:31: gnn.compare[1].name: variant 'a' is already the name of variant 1; each variant "
            "needs its "
            "own name");
}

// Checked once the graph's node count is known (the reader knows it: 2^scale, or the file's), at the
// key the user wrote; gnn::Simulate keeps the same checks for callers of the library.
TEST(GnnScenarioBadInputTest, CacheLargerThanTheGraph) {
  EXPECT_EQ(
      ErrorOf(Scenario("{file: tiny.txt}", "  cache: {gpu_gib: 1}\n  hardware: {gpus_per_machine: 1}\n")),
      "s.yaml:4:20: gnn.cache.gpu_gib: 1 GiB per GPU x 1 GPUs holds 2097152 nodes' features, more than the "
      "graph's 6 nodes; allowed: at most 2.861e-06 GiB here");
  GnnOptions o;
  o.graph.rmat = false;
  o.cache.gpu_gib = 1;
  o.hardware.gpus_per_machine = 1;
  auto sc = Parse(Scenario("{file: tiny.txt}", "  hardware: {gpus_per_machine: 1}\n"));
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  o.graph = sc->options.graph;
  auto r = Simulate(o, testing::Catalogs(), nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("more than the graph's 6 nodes"), std::string::npos) << r.error().message;
}

// The default 1 GiB per GPU held more nodes than an R-MAT scale-14 graph has and failed a scenario
// that never wrote `cache:`: a default is fitted to the graph instead.
TEST(GnnScenarioTest, DefaultCacheIsFittedToASmallGraph) {
  auto sc = Parse(Scenario("{rmat: {scale: 14}}"));
  ASSERT_TRUE(sc.ok()) << sc.error().message;
  EXPECT_LT(sc->options.cache.gpu_gib, 1);
  EXPECT_TRUE(Simulate(sc->options, testing::Catalogs(), nullptr).ok());
}

TEST(GnnScenarioBadInputTest, SplitWithoutATrainingNode) {
  EXPECT_EQ(
      ErrorOf(Scenario("{file: tiny.txt}", "  split: {train: 0.05}\n")),
      "s.yaml:4:18: gnn.split.train: the split has no training node: train fraction 0.05 of the graph's 6 "
      "nodes rounds to 0; allowed: at least 0.0833333 (one node)");
  EXPECT_EQ(
      ErrorOf(Scenario("{file: path3.txt}")),
      "s.yaml:3:10: gnn.graph: the split has no training node: train fraction 0.1 of the graph's 3 nodes "
      "rounds to 0; allowed: at least 0.166667 (one node); give split: {train: ...}");
}

TEST(GnnScenarioBadInputTest, MoreMachinesThanNodes) {
  EXPECT_EQ(
      ErrorOf(Scenario("{file: tiny.txt}", "  split: {train: 0.5}\n  hardware: {machines: 4096}\n")),
      "s.yaml:5:24: gnn.hardware.machines: 4096 machines (partitions) for a graph of 6 nodes; allowed: 1..6 "
      "(at most one machine per node)");
}

// num_nodes: 1000000000 ran out of memory ("dlsim: out of memory"); the range protects it.
TEST(GnnScenarioBadInputTest, NumNodesBeyondItsRange) {
  EXPECT_EQ(
      ErrorOf(Scenario("{file: tiny.txt, num_nodes: 1000000000}")),
      "s.yaml:3:38: gnn.graph.num_nodes: expected an integer, found '1000000000'; allowed: 0 or 1..134217728 "
      "(0: the ids in the file, relabelled densely)");
}

}  // namespace
}  // namespace dlsim::gnn
