// Edge-list files: formats, comments, headers, relabelling, and an error per bad line.
#include "dlsim/io/edge_list.h"

#include <gtest/gtest.h>

namespace dlsim::io {
namespace {

std::string ErrorOf(std::string_view text, EdgeListOptions o = {}) {
  auto r = ParseEdgeList(text, "g.txt", o);
  return r.ok() ? "" : r.error().message;
}

TEST(EdgeListTest, SnapWithCommentsAndWeights) {
  auto e = ParseEdgeList("# a comment\n% another\n0 1\n1\t2 0.5\n\n2   0\n", "g.txt", {});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->num_nodes, 3);
  EXPECT_EQ(e->src, (std::vector<gnn::NodeId>{0, 1, 2}));
  EXPECT_EQ(e->dst, (std::vector<gnn::NodeId>{1, 2, 0}));
}

TEST(EdgeListTest, CsvHeaderAndSparseIdsAreRelabelled) {
  auto e = ParseEdgeList("id_1,id_2\n35,1033\n35,103482\r\n", "g.csv", {.format = EdgeListFormat::kCsv});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->num_nodes, 3);
  EXPECT_EQ(e->src, (std::vector<gnn::NodeId>{0, 0}));
  EXPECT_EQ(e->dst, (std::vector<gnn::NodeId>{1, 2}));
}

TEST(EdgeListTest, TsvAndSkipLines) {
  auto e = ParseEdgeList("4039\n1\t0\n2\t0\n", "g.tsv", {.format = EdgeListFormat::kTsv, .skip_lines = 1});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->src.size(), 2u);
}

TEST(EdgeListTest, FixedNodeCountKeepsIds) {
  auto e = ParseEdgeList("0 5\n", "g.txt", {.num_nodes = 10});
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->num_nodes, 10);
  EXPECT_EQ(e->dst[0], 5u);
}

// Bad input: each error names the file, the line and what was expected.
TEST(EdgeListBadInputTest, MalformedLine) {
  EXPECT_EQ(ErrorOf("0 1\n2\n"),
            "g.txt:2: expected 2 node ids (and an optional weight) separated by "
            "blanks, found '2'");
}
TEST(EdgeListBadInputTest, TooManyColumns) {
  EXPECT_NE(ErrorOf("0,1,2,3\n").find("g.txt:1: expected 2 node ids"), std::string::npos);
}
TEST(EdgeListBadInputTest, NegativeId) {
  EXPECT_EQ(ErrorOf("0 1\n-3 1\n"), "g.txt:2: node id '-3' is not a non-negative integer");
}
TEST(EdgeListBadInputTest, NonNumericIdAfterData) {
  EXPECT_EQ(ErrorOf("0,1\nx,y\n"), "g.txt:2: node id 'x' is not a non-negative integer");
}
TEST(EdgeListBadInputTest, IdTooLarge) {
  EXPECT_EQ(ErrorOf("0 4294967296\n"), "g.txt:1: node id 4294967296 is too large; ids must be below 2^31");
}
TEST(EdgeListBadInputTest, IdOutOfRange) {
  EXPECT_EQ(ErrorOf("0 1\n1 40\n", {.num_nodes = 40}),
            "g.txt:2: node id 40 is out of range; the graph has 40 nodes (ids 0..39)");
}
TEST(EdgeListBadInputTest, BadWeight) {
  EXPECT_EQ(ErrorOf("0 1 heavy\n"), "g.txt:1: edge weight 'heavy' is not a number");
}
TEST(EdgeListBadInputTest, NonFiniteWeight) {
  EXPECT_EQ(ErrorOf("0 1 nan\n"), "g.txt:1: edge weight 'nan' is not a finite number");
  EXPECT_EQ(ErrorOf("0 1 1\n1 2 inf\n"), "g.txt:2: edge weight 'inf' is not a finite number");
  EXPECT_EQ(ErrorOf("0,1,-INF\n"), "g.txt:1: edge weight '-INF' is not a finite number");
}
TEST(EdgeListBadInputTest, EmptyFile) {
  EXPECT_EQ(ErrorOf("# only a comment\n"), "g.txt: no edge in the file");
}
TEST(EdgeListBadInputTest, NodeCountLineWithoutSkip) {
  // The shared SNAP Facebook file starts with its node count: without skip_lines: 1 it is a bad line.
  EXPECT_NE(ErrorOf("4039\n1 0 1\n").find("g.txt:1: expected 2 node ids"), std::string::npos);
}

// WebGraph's ASCII graph: the node count, then node i's successors on line i + 2 (empty: none).
TEST(EdgeListTest, AdjacencyListKeepsIdsAndEmptyLinesAreNodesWithoutSuccessors) {
  auto e = ParseEdgeList("4\n1 2\n\n3 0\n1\n", "g.graph-txt", {.format = EdgeListFormat::kAdjacency});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->num_nodes, 4);
  EXPECT_EQ(e->src, (std::vector<gnn::NodeId>{0, 0, 2, 2, 3}));
  EXPECT_EQ(e->dst, (std::vector<gnn::NodeId>{1, 2, 3, 0, 1}));
  // The last node without successors: its empty line is still there.
  auto last = ParseEdgeList("2\n1\n\n", "g.graph-txt", {.format = EdgeListFormat::kAdjacency});
  ASSERT_TRUE(last.ok()) << last.error().message;
  EXPECT_EQ(last->src.size(), 1u);
}

TEST(EdgeListTest, AdjacencyListErrorsNameTheFileAndLine) {
  const EdgeListOptions adj{.format = EdgeListFormat::kAdjacency};
  EXPECT_NE(ErrorOf("# nodes\n0\n", adj).find("g.txt:1: expected the node count"), std::string::npos);
  EXPECT_NE(ErrorOf("0\n", adj).find("g.txt:1: expected the node count"), std::string::npos);
  EXPECT_NE(ErrorOf("3\n1\n9\n\n", adj).find("g.txt:3: node id 9 is out of range; the graph has 3 nodes"),
            std::string::npos);
  EXPECT_NE(ErrorOf("3\n1 2\n0\n", adj).find("g.txt: 2 node lines, but the first line says 3 nodes"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2\n1\n0\n1\n", adj).find("g.txt:4: a line after the 2 node lines"), std::string::npos);
  EXPECT_NE(ErrorOf("2\n1 x\n0\n", adj).find("g.txt:2: node id 'x' is not a non-negative integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf("2\n\n\n", adj).find("g.txt: no edge in the file"), std::string::npos);
  EXPECT_NE(ErrorOf("2\n1\n0\n", {.format = EdgeListFormat::kAdjacency, .num_nodes = 3})
                .find("g.txt:1: the adjacency list has 2 nodes, but num_nodes is 3"),
            std::string::npos);
}

}  // namespace
}  // namespace dlsim::io
