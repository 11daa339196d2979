// hw::Catalog, GpuSpec helpers and entry validation, on hand-built entries (no YAML).
#include "dlsim/hw/catalog.h"

#include <gtest/gtest.h>

namespace dlsim::hw {
namespace {

GpuSpec MakeGpu(std::string name, std::vector<std::string> aliases = {}) {
  GpuSpec g;
  g.name = std::move(name);
  g.aliases = std::move(aliases);
  g.dense_peak[static_cast<int>(DType::kFp32)] = TFLOPS(67);
  g.dense_peak[static_cast<int>(DType::kBf16)] = TFLOPS(989.4);
  g.hbm_capacity = GiB(80);
  g.hbm_bandwidth = GBps(3350);
  g.sm_count = 132;
  g.pcie_gen = 5;
  g.pcie_lanes = 16;
  return g;
}

TEST(DTypeTest, NamesRoundTripAndBytes) {
  for (DType t : kAllDTypes) EXPECT_EQ(ParseDType(DTypeName(t)), t);
  EXPECT_EQ(ParseDType("BF16"), DType::kBf16);
  EXPECT_EQ(ParseDType("fp64"), std::nullopt);
  EXPECT_EQ(DTypeBytes(DType::kFp32), 4);
  EXPECT_EQ(DTypeBytes(DType::kTf32), 4);
  EXPECT_EQ(DTypeBytes(DType::kBf16), 2);
  EXPECT_EQ(DTypeBytes(DType::kFp8), 1);
  EXPECT_EQ(DTypeBytes(DType::kInt8), 1);
}

TEST(GpuSpecTest, PcieBandwidthPerDirection) {
  GpuSpec g = MakeGpu("x");
  struct Case {
    int gen, lanes;
    double gbps;
  };
  for (Case c : {Case{3, 16, 15.754}, Case{4, 16, 31.508}, Case{5, 16, 63.015}, Case{4, 8, 15.754},
                 Case{6, 16, 128.0}, Case{0, 16, 0.0}, Case{4, 0, 0.0}}) {
    g.pcie_gen = c.gen;
    g.pcie_lanes = c.lanes;
    EXPECT_NEAR(g.PcieBandwidth().ToGBps(), c.gbps, 0.01) << "gen " << c.gen << " x" << c.lanes;
  }
}

TEST(GpuSpecTest, PeakAndSupport) {
  GpuSpec g = MakeGpu("x");
  EXPECT_DOUBLE_EQ(g.Peak(DType::kBf16).ToTFLOPS(), 989.4);
  EXPECT_TRUE(g.Supports(DType::kBf16));
  EXPECT_FALSE(g.Supports(DType::kFp8));
}

TEST(CatalogTest, FindsByNameAndAliasCaseInsensitively) {
  Catalog c;
  ASSERT_TRUE(c.AddGpu(MakeGpu("h100-sxm5-80gb", {"h100"})).ok());
  ASSERT_TRUE(c.AddGpu(MakeGpu("a100-sxm4-80gb", {"a100"})).ok());
  EXPECT_EQ((*c.FindGpu("h100"))->name, "h100-sxm5-80gb");
  EXPECT_EQ((*c.FindGpu("H100-SXM5-80GB"))->name, "h100-sxm5-80gb");
  EXPECT_EQ(c.GpuNames(), (std::vector<std::string>{"a100-sxm4-80gb", "h100-sxm5-80gb"}));
  EXPECT_EQ(c.GpuNamesAndAliases().size(), 4u);
}

TEST(CatalogTest, UnknownNameSuggestsClosest) {
  Catalog c;
  ASSERT_TRUE(c.AddGpu(MakeGpu("h100-sxm5-80gb", {"h100"})).ok());
  auto r = c.FindGpu("h10");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("unknown GPU 'h10'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("did you mean 'h100'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("known: h100-sxm5-80gb"), std::string::npos) << r.error().message;
}

TEST(CatalogTest, ReplacingAnEntryDropsItsOldAliases) {
  Catalog c;
  ASSERT_TRUE(c.AddGpu(MakeGpu("g", {"old"})).ok());
  GpuSpec g = MakeGpu("g", {"new"});
  g.sm_count = 7;
  ASSERT_TRUE(c.AddGpu(g).ok());
  EXPECT_FALSE(c.FindGpu("old").ok());
  EXPECT_EQ((*c.FindGpu("new"))->sm_count, 7);
}

TEST(CatalogTest, AliasCollisionIsAnError) {
  Catalog c;
  ASSERT_TRUE(c.AddGpu(MakeGpu("a", {"x"})).ok());
  Status st = c.AddGpu(MakeGpu("b", {"x"}));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("'x' is already used by 'a'"), std::string::npos) << st.error().message;
  EXPECT_FALSE(c.AddGpu(MakeGpu("x")).ok());  // a name equal to another entry's alias
}

TEST(CatalogTest, ValidationRejectsBadEntries) {
  Catalog c;
  GpuSpec g = MakeGpu("bad");
  g.sm_count = 0;
  EXPECT_FALSE(c.AddGpu(g).ok());
  g = MakeGpu("bad");
  g.mig.push_back({"1g.10gb", 1, 1, 200, GiB(10), 7, {0, 1, 2, 3, 4, 5, 6}});  // more SMs than the GPU
  Status st = c.AddGpu(g);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("sms must be 1..132"), std::string::npos) << st.error().message;
  g.mig = {{"4g.40gb", 4, 4, 64, GiB(40), 1, {6}}};  // 4 memory slices starting at 6 overflow 8
  EXPECT_FALSE(c.AddGpu(g).ok());
  g.mig.clear();
  g.nvls = true;  // NVLS without NVLink
  EXPECT_FALSE(c.AddGpu(g).ok());

  NetworkSpec n;
  n.name = "net";
  n.link_bandwidth = Gbps(400);
  n.oversubscription = 0.5;
  EXPECT_FALSE(c.AddNetwork(n).ok());
  n.oversubscription = 2;
  EXPECT_TRUE(c.AddNetwork(n).ok());
}

TEST(CatalogTest, CheckReferencesNamesTheNode) {
  Catalog c;
  ASSERT_TRUE(c.AddGpu(MakeGpu("h100-sxm5-80gb", {"h100"})).ok());
  NodeSpec n;
  n.name = "box";
  n.gpu = "h100";
  n.gpus_per_node = 8;
  n.intra_bandwidth = GBps(450);
  ASSERT_TRUE(c.AddNode(n).ok());
  EXPECT_TRUE(c.CheckReferences().ok());
  n.gpu = "h200";
  ASSERT_TRUE(c.AddNode(n).ok());
  Status st = c.CheckReferences();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("node 'box'"), std::string::npos) << st.error().message;
}

TEST(TopologyNamesTest, Names) {
  EXPECT_EQ(FabricName(IntraNodeFabric::kNvLinkPairwise), "nvlink-pairwise");
  EXPECT_EQ(TopologyName(NetworkTopology::kRailOptimized), "rail-optimized");
}

}  // namespace
}  // namespace dlsim::hw
