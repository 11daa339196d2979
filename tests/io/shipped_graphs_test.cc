// The real graphs compiled into dlsim (io/shipped_graphs.h) and gzipped edge-list files
// (io::ReadEdgeListFile): the upstream counts, and errors that name what is wrong.
#include "dlsim/io/shipped_graphs.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <string>

#include "dlsim/io/edge_list.h"

namespace dlsim::io {
namespace {

// cnr-2000.properties: nodes=325557, arcs=3216152; OGB's ogbl-ddi raw counts 4267 and 1067911.
TEST(ShippedGraphsTest, CountsAreTheUpstreamOnes) {
  ASSERT_EQ(ShippedGraphs().size(), 2u);
  auto cnr = ReadShippedGraph("cnr-2000");
  ASSERT_TRUE(cnr.ok()) << cnr.error().message;
  EXPECT_EQ(cnr->num_nodes, 325557);
  EXPECT_EQ(cnr->src.size(), 3216152u);
  auto ddi = ReadShippedGraph("ogbl-ddi");
  ASSERT_TRUE(ddi.ok()) << ddi.error().message;
  EXPECT_EQ(ddi->num_nodes, 4267);
  EXPECT_EQ(ddi->src.size(), 1067911u);
}

TEST(ShippedGraphsTest, AnUnknownNameSuggestsTheClosest) {
  auto g = ReadShippedGraph("cnr2000");
  ASSERT_FALSE(g.ok());
  EXPECT_NE(g.error().message.find("did you mean 'cnr-2000'"), std::string::npos) << g.error().message;
  EXPECT_NE(g.error().message.find("ogbl-ddi"), std::string::npos);
}

void WriteGzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  ASSERT_EQ(gzclose(f), Z_OK);
}

TEST(ShippedGraphsTest, GzippedEdgeListFilesReadAsTheirText) {
  const auto dir = std::filesystem::temp_directory_path() / "dlsim_shipped_graphs_test";
  std::filesystem::create_directories(dir);
  const std::string gz = (dir / "g.txt.gz").string();
  WriteGzip(gz, "0 1\n1 2\n");
  auto e = ReadEdgeListFile(gz, {});
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->src.size(), 2u);
  WriteGzip(gz, "0 1\n1 x\n");  // errors keep the file and its (decompressed) line
  auto bad = ReadEdgeListFile(gz, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("g.txt.gz:2: node id 'x'"), std::string::npos) << bad.error().message;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dlsim::io
